package dev.mortise.lock.spring.metrics;

import dev.mortise.lock.DeadlockCycle;
import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockMode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@value LockMetrics#DEADLOCKS} from the clients' DEADLOCK events: there from start-up at zero, and
 * a programmatic wait ended as a deadlock's victim is also a failed acquire (annotated ones are
 * recorded by the starter's observer, see {@code DeadlockIntegrationTestSupport}).
 */
class LockMetricsDeadlockTests {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final LockMetrics metrics = new LockMetrics(registry);

    @Test
    void theCounterExistsFromStartupAtZero() {
        metrics.register("redis");
        assertThat(registry.get(LockMetrics.DEADLOCKS).tag(LockMetrics.TAG_BACKEND, "redis")
                .tag(LockMetrics.TAG_NAME, LockMetrics.PROGRAMMATIC).tag(LockMetrics.TAG_MODE, "write")
                .counter().count()).isZero();
    }

    @Test
    void aProgrammaticDeadlockIsCountedAndIsAFailedAcquire() {
        metrics.register("redis");
        metrics.onEvent(deadlock("redis", "account:7", LockMode.SHARED));
        assertThat(registry.get(LockMetrics.DEADLOCKS).tag(LockMetrics.TAG_NAME, LockMetrics.PROGRAMMATIC)
                .tag(LockMetrics.TAG_MODE, "read").counter().count()).isEqualTo(1);
        assertThat(registry.get(LockMetrics.ACQUIRE).tag(LockMetrics.TAG_NAME, LockMetrics.PROGRAMMATIC)
                .tag(LockMetrics.TAG_MODE, "read").tag(LockMetrics.TAG_OUTCOME, "error").timer().count())
                .isEqualTo(1);
        assertThat(registry.getMeters()).allSatisfy(meter -> assertThat(meter.getId().getTags())
                .noneMatch(tag -> tag.getValue().contains("account")));
    }

    private static LockEvent deadlock(String backend, String key, LockMode mode) {
        DeadlockCycle cycle = new DeadlockCycle(List.of(
                new DeadlockCycle.Member("0123456789abcdef", "other", key, mode, Duration.ofMillis(300), true),
                new DeadlockCycle.Member("fedcba9876543210", key, "other", LockMode.EXCLUSIVE,
                        Duration.ofMillis(500), false)), backend, Instant.now());
        return new LockEvent(LockEvent.Type.DEADLOCK, backend, key, -1, Duration.ofMillis(300),
                new LockDeadlockException(key, backend, cycle), null, mode, null);
    }
}
