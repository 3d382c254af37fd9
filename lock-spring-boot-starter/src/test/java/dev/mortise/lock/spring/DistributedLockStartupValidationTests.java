package dev.mortise.lock.spring;

import org.junit.jupiter.api.Test;
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
