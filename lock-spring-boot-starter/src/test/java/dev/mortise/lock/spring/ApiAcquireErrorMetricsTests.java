package dev.mortise.lock.spring;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockMetricsAutoConfiguration;
import dev.mortise.lock.spring.metrics.LockMetrics;
import dev.mortise.lock.tck.FaultInjectingBackend;
import dev.mortise.lock.tck.FaultInjectingBackend.Injection;
import dev.mortise.lock.tck.FaultInjectingBackend.Operation;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 15 item 10: {@code mortise.lock.acquire{outcome=error}} counts acquires the backend
 * failed for code that uses an injected {@code LockClient} directly, not only for
 * {@code @DistributedLock} calls — and an annotated call that fails is counted once. The backend
 * is the in-process one (never stalled here) with scripted failures.
 */
class ApiAcquireErrorMetricsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockMetricsAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=stalling", "mortise.lock.wait-for=200ms")
            .withBean("failing", FaultInjectingBackend.class, () -> new FaultInjectingBackend(new StallingBackend()))
            .withBean(SimpleMeterRegistry.class)
            .withBean(Jobs.class);

    @Test
    void aDirectAcquireTheBackendFailsIsCountedAsAnError() {
        runner.run(context -> {
            FaultInjectingBackend backend = context.getBean(FaultInjectingBackend.class);
            LockClient client = context.getBean(LockClient.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            backend.script(Operation.ACQUIRE, Injection.fail(), 1);
            backend.script(Operation.TRY_ACQUIRE, Injection.fail(), 1);

            assertThatThrownBy(() -> client.acquire("direct", Duration.ofSeconds(1)))
                    .isInstanceOf(LockBackendException.class);
            assertThatThrownBy(() -> client.tryAcquire("direct")).isInstanceOf(LockBackendException.class);

            assertThat(count(registry, LockMetrics.PROGRAMMATIC, "error")).isEqualTo(2);
            assertThat(count(registry, LockMetrics.PROGRAMMATIC, "acquired")).isZero();
        });
    }

    @Test
    void aFailedReleaseIsNotAnAcquireError() {
        runner.run(context -> {
            FaultInjectingBackend backend = context.getBean(FaultInjectingBackend.class);
            LockClient client = context.getBean(LockClient.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            var lease = client.acquire("released", Duration.ofSeconds(1));
            backend.script(Operation.RELEASE, Injection.fail(), 1);
            assertThatThrownBy(lease::close).isInstanceOf(LockBackendException.class);
            assertThat(count(registry, LockMetrics.PROGRAMMATIC, "acquired")).isEqualTo(1);
            assertThat(count(registry, LockMetrics.PROGRAMMATIC, "error")).isZero();
        });
    }

    @Test
    void aTimeoutThatThrowsIsATimeoutNotAnError() {
        runner.run(context -> {
            LockClient client = context.getBean(LockClient.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            try (var ignored = LockTestSupport.holdElsewhere(client, "taken")) {
                assertThatThrownBy(() -> client.acquire("taken", Duration.ofMillis(100)))
                        .isInstanceOf(LockTimeoutException.class);
            }
            assertThat(count(registry, LockMetrics.PROGRAMMATIC, "timeout")).isEqualTo(1);
            assertThat(count(registry, LockMetrics.PROGRAMMATIC, "error")).isZero();
        });
    }

    @Test
    void anAnnotatedAcquireTheBackendFailsIsCountedOnceUnderItsName() {
        runner.run(context -> {
            FaultInjectingBackend backend = context.getBean(FaultInjectingBackend.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            backend.script(Operation.ACQUIRE, Injection.fail(), 1);
            backend.script(Operation.TRY_ACQUIRE, Injection.fail(), 1);

            assertThatThrownBy(() -> context.getBean(Jobs.class).run("a")).isInstanceOf(LockBackendException.class);

            assertThat(count(registry, "job", "error")).isEqualTo(1);
            assertThat(count(registry, LockMetrics.PROGRAMMATIC, "error")).as("not counted again as programmatic")
                    .isZero();
        });
    }

    private static long count(MeterRegistry registry, String name, String outcome) {
        Timer timer = registry.find(LockMetrics.ACQUIRE).tag(LockMetrics.TAG_NAME, name)
                .tag(LockMetrics.TAG_OUTCOME, outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    public static class Jobs {
        @DistributedLock(key = "'job:' + #id", name = "job")
        public void run(String id) {
        }
    }
}
