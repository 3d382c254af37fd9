package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
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

    /** Issue 15 item 10: the README tells users to look at mortise.lock.acquire right after start. */
    @Test
    void theAcquireTimerExistsRightAfterStart() {
        runner.run(context -> assertThat(context.getBean(MeterRegistry.class).find(LockMetrics.ACQUIRE).timers())
                .as("mortise.lock.acquire before any call").isNotEmpty());
    }

    /**
     * Issue 29 item 6: every mortise.lock.* meter of the docs' "exist from start-up" exists before
     * the first lock, mortise.lock.lost included (an alert on it sees 0, not "no data").
     */
    @Test
    void everyLockMeterExistsAtZeroRightAfterStart() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find(LockMetrics.HELD).longTaskTimers()).isNotEmpty();
            assertThat(registry.find(LockMetrics.RENEWALS).counters()).isNotEmpty();
            assertThat(registry.find(LockMetrics.LOST).counters()).as("mortise.lock.lost before any loss")
                    .isNotEmpty().allMatch(counter -> counter.count() == 0.0);
            assertThat(registry.find(LockMetrics.LOST).tag("backend", "local").tag("reason", "expired").counter())
                    .isNotNull();
        });
    }

    /** Issue 15 item 10: code that uses the injected LockClient gets the same meters. */
    @Test
    void acquiresThroughTheInjectedClientAreTimedAndHeld() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LockClient client = context.getBean(LockClient.class);
            try (LockLease ignored = client.acquire("adhoc", java.time.Duration.ofSeconds(1))) {
                assertThat(registry.get(LockMetrics.HELD).tag("name", LockMetrics.PROGRAMMATIC).longTaskTimer()
                        .activeTasks()).isEqualTo(1);
            }
            assertThat(client.tryAcquire(LockSpec.of("adhoc").owner("x"))).isPresent();
            assertThat(registry.get(LockMetrics.ACQUIRE).tag("backend", "local").tag("name", LockMetrics.PROGRAMMATIC)
                    .tag("outcome", "acquired").timer().count()).isEqualTo(2);
            try (LockLease ignored = LockTestSupport.holdElsewhere(client, "busy")) {
                assertThat(client.tryAcquire("busy")).isEmpty();
            }
            assertThat(registry.get(LockMetrics.ACQUIRE).tag("name", LockMetrics.PROGRAMMATIC).tag("outcome", "busy")
                    .timer().count()).isEqualTo(1);
            assertThat(registry.get(LockMetrics.HELD).tag("name", LockMetrics.PROGRAMMATIC).longTaskTimer()
                    .activeTasks()).as("only adhoc, still held by owner x").isEqualTo(1);
        });
    }

    /**
     * Issue 15 item 10: the Observation adds no meters beside the documented ones. Spring
     * Boot puts every MeterObservationHandler bean, in order, into one first-matching
     * handler beside Micrometer's default one; the test wires the same.
     */
    @Test
    @SuppressWarnings({"rawtypes", "unchecked"})
    void observationsAddNoNearDuplicateMeters() {
        runner.withConfiguration(AutoConfigurations.of(
                        dev.mortise.lock.spring.autoconfigure.MortiseLockObservationAutoConfiguration.class))
                .withBean(io.micrometer.observation.ObservationRegistry.class,
                        io.micrometer.observation.ObservationRegistry::create)
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    java.util.List<io.micrometer.observation.ObservationHandler> handlers = new java.util.ArrayList<>(
                            context.getBeanProvider(io.micrometer.core.instrument.observation.MeterObservationHandler.class)
                                    .orderedStream().toList());
                    handlers.add(new io.micrometer.core.instrument.observation.DefaultMeterObservationHandler(registry));
                    context.getBean(io.micrometer.observation.ObservationRegistry.class).observationConfig()
                            .observationHandler(new io.micrometer.observation.ObservationHandler
                                    .FirstMatchingCompositeObservationHandler((java.util.List) handlers));
                    context.getBean(Orders.class).pay("1");
                    assertThat(registry.getMeters()).extracting(meter -> meter.getId().getName())
                            .doesNotContain("mortise.lock", "mortise.lock.active", "mortise.lock.acquired")
                            .allMatch(name -> !name.startsWith("mortise.") || java.util.Set.of(LockMetrics.ACQUIRE,
                                    LockMetrics.HELD, LockMetrics.RENEWALS, LockMetrics.LOST, LockMetrics.DEADLOCKS)
                                    .contains(name));
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
