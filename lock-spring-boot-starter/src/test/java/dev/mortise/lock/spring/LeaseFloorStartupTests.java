package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.ForwardingLockBackend;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 29 item 2: a {@code lease} shorter than the backend can honour fails start-up, naming
 * the bean, the method, the attribute, the value, the backend, its floor and the fix, instead
 * of failing every call (for a {@code @Scheduled} job: an hour later). The backend is the
 * in-process one with a whole-seconds floor, as etcd has (its TTLs are whole seconds).
 */
class LeaseFloorStartupTests {

    /** The in-process backend, told to honour nothing under a second (etcd's floor). */
    static LockBackend wholeSeconds() {
        return new ForwardingLockBackend(LocalLockBackend.create()) {
            @Override
            public String name() {
                return "whole-seconds";
            }

            @Override
            public BackendGuarantees guarantees() {
                BackendGuarantees local = super.guarantees();
                return new BackendGuarantees(local.leaseModel(), local.fair(), local.wakeup(), local.fencing(),
                        Duration.ofSeconds(1));
            }
        };
    }

    private final ApplicationContextRunner runner = LockTestSupport.localRunner()
            .withPropertyValues("mortise.lock.backend=whole-seconds")
            .withBean("wholeSeconds", LockBackend.class, LeaseFloorStartupTests::wholeSeconds);

    @Test
    void aLeaseUnderTheBackendsFloorFailsStartUp() {
        runner.withBean("billingJob", ShortLease.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("bean 'billingJob'")
                .hasStackTraceContaining("ShortLease.bill()")
                .hasStackTraceContaining("lease = \"500ms\"")
                .hasStackTraceContaining("backend 'whole-seconds'")
                .hasStackTraceContaining("PT1S")
                .hasStackTraceContaining("at least PT1S"));
    }

    @Test
    void aPlaceholderLeaseNamesTheResolvedValueToo() {
        runner.withBean("billingJob", PlaceholderLease.class).withPropertyValues("jobs.bill.lease=200ms")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("lease = \"${jobs.bill.lease}\"")
                        .hasStackTraceContaining("PT0.2S"));
        runner.withBean("billingJob", PlaceholderLease.class).withPropertyValues("jobs.bill.lease=2s")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aLeaseOnANamedBackendIsCheckedAgainstThatBackend() {
        LockTestSupport.localRunner()
                .withBean("wholeSeconds", LockBackend.class, LeaseFloorStartupTests::wholeSeconds)
                .withBean("billingJob", ShortLeaseOnNamedBackend.class)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("backend 'whole-seconds'")
                        .hasStackTraceContaining("ShortLeaseOnNamedBackend.bill()"));
    }

    @Test
    void theClockDriftFloorOfTheDefaultClientCountsToo() {
        // The local backend honours 1 ms, but 1% + 2 ms of drift leaves too little of a 5 ms lease.
        LockTestSupport.localRunner().withBean("tinyJob", TinyLease.class)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("bean 'tinyJob'")
                        .hasStackTraceContaining("lease = \"5ms\"")
                        .hasStackTraceContaining("backend 'local'"));
    }

    @Test
    void leasesAtOrAboveTheFloorAndHoldAtLeastUnderItStart() {
        runner.withBean(LongEnough.class).run(context -> {
            assertThat(context).hasNotFailed();
            LockClient client = context.getBean(LockClient.class);
            assertThat(client.shortestLease()).isEqualTo(Duration.ofSeconds(1));
            // holdAtLeast under the floor is honoured: the hold lasts at least that long (longer).
            context.getBean(LongEnough.class).bill();
        });
    }

    @Test
    void aDefaultLeaseUnderTheFloorFailsStartUpNamingTheProperty() {
        runner.withPropertyValues("mortise.lock.default-lease=500ms")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.default-lease")
                        .hasStackTraceContaining("whole-seconds"));
    }

    public static class ShortLease {
        @DistributedLock(key = "'billing-run'", lease = "500ms")
        public void bill() {
        }
    }

    public static class PlaceholderLease {
        @DistributedLock(key = "'billing-run'", lease = "${jobs.bill.lease}")
        public void bill() {
        }
    }

    public static class ShortLeaseOnNamedBackend {
        @DistributedLock(key = "'billing-run'", lease = "500ms", backend = "whole-seconds")
        public void bill() {
        }
    }

    public static class TinyLease {
        @DistributedLock(key = "'tiny'", lease = "5ms")
        public void run() {
        }
    }

    public static class LongEnough {
        @DistributedLock(key = "'billing-run'", lease = "1s", holdAtLeast = "500ms")
        public void bill() {
        }
    }
}
