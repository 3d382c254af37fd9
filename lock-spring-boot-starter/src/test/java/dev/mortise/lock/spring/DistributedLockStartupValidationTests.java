package dev.mortise.lock.spring;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Mistakes in {@code @DistributedLock} fail application start-up, naming the method and the fix. */
class DistributedLockStartupValidationTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner();

    @Test
    void spelSyntaxErrorFailsStartup() {
        runner.withBean(BadSpel.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("BadSpel.run(String)")
                .hasStackTraceContaining("\"'order:' + #id +\"")
                .hasStackTraceContaining("is not valid SpEL"));
    }

    @Test
    void spelSyntaxErrorOnALaterMethodFailsStartupToo() {
        // The proxy only needs one matching method; the validator checks them all.
        runner.withBean(BadSecondMethod.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("BadSecondMethod.second()"));
    }

    @Test
    void unparsableDurationFailsStartup() {
        runner.withBean(BadDuration.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("waitFor = \"five seconds\"")
                .hasStackTraceContaining("BadDuration.run()")
                .hasStackTraceContaining("\"5s\""));
    }

    @Test
    void placeholdersAreResolvedAndMissingOnesFailStartup() {
        runner.withBean(PlaceholderDuration.class).withPropertyValues("locks.pay.wait=2s")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withBean(PlaceholderDuration.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("${locks.pay.wait}")
                .hasStackTraceContaining("PlaceholderDuration.run()"));
    }

    @Test
    void failWithWaitForFailsStartup() {
        runner.withBean(FailThatWaits.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("onBusy = FAIL and waitFor"));
    }

    @Test
    void skipOnPrimitiveResultFailsStartup() {
        runner.withBean(SkipPrimitive.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("onBusy = SKIP but returns int"));
    }

    @Test
    void unknownBackendFailsStartup() {
        runner.withBean(UnknownBackend.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("backend = \"etcd\"")
                .hasStackTraceContaining("UnknownBackend.run()")
                .hasStackTraceContaining("configured: [local]"));
    }

    @Test
    void fencingTokenMustBeALong() {
        runner.withBean(BadFencing.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("@FencingToken parameter 0 of BadFencing.run(int)"));
    }

    @Test
    void holdAtLeastLongerThanLeaseFailsStartup() {
        runner.withBean(HoldLongerThanLease.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("longer than its lease"));
    }

    @Test
    void privateFinalOrStaticAnnotatedMethodFailsStartupInProxyMode() {
        runner.withBean(PrivateMethod.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("PrivateMethod.run(String)")
                .hasStackTraceContaining("private")
                .hasStackTraceContaining("public and non-final")
                .hasStackTraceContaining("mortise.lock.mode=aspectj"));
        runner.withBean(FinalMethod.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("FinalMethod.run(String)")
                .hasStackTraceContaining("final"));
        runner.withBean(StaticMethod.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("StaticMethod.run(String)")
                .hasStackTraceContaining("static"));
    }

    @Test
    void privateAnnotatedMethodIsFineInAspectJMode() {
        // Stands in for the weaving check: this test JVM does not weave the aspect.
        runner.withPropertyValues("mortise.lock.mode=aspectj").withBean(PrivateMethod.class)
                .withBean("lockAspectJWiring", SmartInitializingSingleton.class, () -> () -> { })
                .run(context -> assertThat(context).hasNotFailed());
    }

    public static class PrivateMethod {
        public void call(String id) {
            run(id);
        }

        @DistributedLock(key = "#id")
        private void run(String id) {
        }
    }

    public static class FinalMethod {
        @DistributedLock(key = "#id")
        public final void run(String id) {
        }
    }

    public static class StaticMethod {
        @DistributedLock(key = "#id")
        public static void run(String id) {
        }
    }

    public static class BadSpel {
        @DistributedLock(key = "'order:' + #id +")
        public void run(String id) {
        }
    }

    public static class BadSecondMethod {
        @DistributedLock(key = "'fine'")
        public void first() {
        }

        @DistributedLock(key = "'broken")
        public void second() {
        }
    }

    public static class BadDuration {
        @DistributedLock(key = "'k'", waitFor = "five seconds")
        public void run() {
        }
    }

    public static class PlaceholderDuration {
        @DistributedLock(key = "'k'", waitFor = "${locks.pay.wait}")
        public void run() {
        }
    }

    public static class FailThatWaits {
        @DistributedLock(key = "'k'", onBusy = OnBusy.FAIL, waitFor = "1s")
        public void run() {
        }
    }

    public static class SkipPrimitive {
        @DistributedLock(key = "'k'", onBusy = OnBusy.SKIP)
        public int run() {
            return 1;
        }
    }

    public static class UnknownBackend {
        @DistributedLock(key = "'k'", backend = "etcd")
        public void run() {
        }
    }

    public static class BadFencing {
        @DistributedLock(key = "'k'")
        public void run(@FencingToken int token) {
        }
    }

    public static class HoldLongerThanLease {
        @DistributedLock(key = "'k'", lease = "1s", holdAtLeast = "2s")
        public void run() {
        }
    }
}
