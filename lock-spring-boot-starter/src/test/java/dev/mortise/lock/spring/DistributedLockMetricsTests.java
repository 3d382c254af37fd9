package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.spring.autoconfigure.MortiseLockMetricsAutoConfiguration;
import dev.mortise.lock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Micrometer metrics recorded by annotated calls and by the lock clients. */
class DistributedLockMetricsTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withBean(Orders.class);

    @Test
    void acquireTimerByOutcomeTaggedWithTheNameNeverTheKey() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Orders orders = context.getBean(Orders.class);
            orders.pay("42");
            orders.pay("43");
            try (LockLease ignored = LockTestSupport.holdElsewhere(context.getBean(LockClient.class), "order:44")) {
                assertThatThrownBy(() -> orders.pay("44")).isInstanceOf(LockTimeoutException.class);
                assertThatThrownBy(() -> orders.payNow("44")).isInstanceOf(LockBusyException.class);
            }
            assertThat(timerCount(registry, "payment", "acquired")).isEqualTo(2);
            assertThat(timerCount(registry, "payment", "timeout")).isEqualTo(1);
            assertThat(timerCount(registry, "'order:' + #id", "busy")).as("name defaults to the key expression")
                    .isEqualTo(1);
            for (Meter meter : registry.getMeters()) {
                assertThat(meter.getId().getTags()).noneMatch(tag -> tag.getValue().startsWith("order:4"));
            }
        });
    }

    @Test
    void heldLongTaskTimerCountsRunningCalls() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.activeHolds("1")).isEqualTo(1);
            assertThat(context.getBean(MeterRegistry.class).get(LockMetrics.HELD).tag("name", "payment")
                    .longTaskTimer().activeTasks()).isZero();
        });
    }

    @Test
    void renewalsAndLossesAreCountedWithTheName() {
        runner.withPropertyValues("mortise.lock.default-lease=600ms").run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Orders orders = context.getBean(Orders.class);
            orders.slow("5");
            assertThat(registry.get(LockMetrics.RENEWALS).tag("backend", "local").tag("name", "payment").counter()
                    .count()).isPositive();
            assertThatThrownBy(() -> orders.lose("6")).isInstanceOf(LockLostException.class);
            assertThat(registry.get(LockMetrics.LOST).tag("backend", "local").tag("name", "payment").counter()
                    .count()).isEqualTo(1);
            assertThat(registry.get(LockMetrics.LOST).counter().getId().getTag(LockMetrics.TAG_REASON))
                    .isIn("expired", "renewal_rejected", "missing_at_release", "force_released", "session_lost");
        });
    }

    @Test
    void programmaticLocksCountUnderAFixedName() {
        runner.run(context -> {
            LockClient client = context.getBean(LockClient.class);
            LockLease lease = client.tryAcquire("adhoc").orElseThrow();
            client.forceRelease("adhoc");
            assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
            assertThat(context.getBean(MeterRegistry.class).get(LockMetrics.LOST)
                    .tag("name", LockMetrics.PROGRAMMATIC).tag("reason", "force_released").counter().count()).isEqualTo(1);
        });
    }

    private static long timerCount(MeterRegistry registry, String name, String outcome) {
        return registry.get(LockMetrics.ACQUIRE).tag("backend", "local").tag("name", name).tag("outcome", outcome)
                .timer().count();
    }

    public static class Orders {
        private final MeterRegistry registry;
        private final LockClient locks;

        public Orders(MeterRegistry registry, LockClient locks) {
            this.registry = registry;
            this.locks = locks;
        }

        @DistributedLock(key = "'order:' + #id", name = "payment", waitFor = "50ms")
        public void pay(String id) {
        }

        @DistributedLock(key = "'order:' + #id", onBusy = OnBusy.FAIL)
        public void payNow(String id) {
        }

        @DistributedLock(key = "'order:' + #id", name = "payment")
        public long activeHolds(String id) {
            return registry.get(LockMetrics.HELD).tag("name", "payment").longTaskTimer().activeTasks();
        }

        @DistributedLock(key = "'order:' + #id", name = "payment")
        public void slow(String id) throws InterruptedException {
            Thread.sleep(500);
        }

        @DistributedLock(key = "'order:' + #id", name = "payment")
        public void lose(String id) {
            locks.forceRelease("order:" + id);
        }
    }
}
