package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.DeadlockDetection;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.spring.LockClients;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code mortise.lock.deadlock-detection.*} binds and reaches every client the starter builds. */
class DeadlockDetectionPropertiesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=local", "mortise.lock.backends.second.type=local");

    @Test
    void onByDefaultAfter200msEvery500ms() {
        runner.run(context -> {
            assertThat(context.getBean(MortiseLockProperties.class).getDeadlockDetection().toSetting())
                    .isEqualTo(DeadlockDetection.DEFAULT);
            for (LockClient client : context.getBean(LockClients.class).asMap().values()) {
                assertThat(client.deadlocks().detection()).isEqualTo(DeadlockDetection.DEFAULT);
            }
        });
    }

    @Test
    void thresholdAndPeriodReachEveryClient() {
        runner.withPropertyValues("mortise.lock.deadlock-detection.threshold=1s",
                "mortise.lock.deadlock-detection.period=2s").run(context -> {
                    LockClients clients = context.getBean(LockClients.class);
                    assertThat(clients.names()).containsExactlyInAnyOrder("local", "second");
                    for (LockClient client : clients.asMap().values()) {
                        assertThat(client.deadlocks().detection())
                                .isEqualTo(new DeadlockDetection(true, Duration.ofSeconds(1), Duration.ofSeconds(2)));
                    }
                });
    }

    @Test
    void theOffSwitchTurnsItOffOnEveryClient() {
        runner.withPropertyValues("mortise.lock.deadlock-detection.enabled=false").run(context -> {
            for (LockClient client : context.getBean(LockClients.class).asMap().values()) {
                assertThat(client.deadlocks().detection().enabled()).isFalse();
            }
        });
    }

    @Test
    void aCustomizerStillHasTheLastWord() {
        runner.withBean(LockClientBuilderCustomizer.class,
                        () -> (name, builder) -> builder.deadlockDetection(DeadlockDetection.off()))
                .run(context -> assertThat(context.getBean(LockClient.class).deadlocks().detection().enabled())
                        .isFalse());
    }

    @Test
    void aThresholdOutOfRangeFailsStartupNamingThePropertyAndTheFix() {
        runner.withPropertyValues("mortise.lock.deadlock-detection.threshold=5ms").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.deadlock-detection.threshold=5ms is out of range")
                        .hasStackTraceContaining("between 10ms and 1h")
                        .hasStackTraceContaining("mortise.lock.deadlock-detection.enabled=false"));
    }

    @Test
    void aPeriodOutOfRangeFailsStartupEvenWithDetectionOff() {
        runner.withPropertyValues("mortise.lock.deadlock-detection.period=2m",
                "mortise.lock.deadlock-detection.enabled=false").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.deadlock-detection.period=2m is out of range")
                        .hasStackTraceContaining("between 50ms and 1m"));
    }

    @Test
    void aMisspelledPropertyFailsStartupNamingTheRightOne() {
        runner.withPropertyValues("mortise.lock.deadlock-detection.treshold=1s").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("Did you mean mortise.lock.deadlock-detection.threshold"));
    }
}
