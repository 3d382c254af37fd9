package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The conditions of {@link MortiseLockMetricsAutoConfiguration}. */
class MortiseLockMetricsAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockMetricsAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=local");

    @Test
    void metricsWithAMeterRegistry() {
        runner.withBean(SimpleMeterRegistry.class)
                .run(context -> assertThat(context).hasSingleBean(LockMetrics.class));
    }

    @Test
    void metricsAfterBootsOwnMeterRegistry() {
        runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class))
                .run(context -> assertThat(context).hasSingleBean(MeterRegistry.class)
                        .hasSingleBean(LockMetrics.class));
    }

    @Test
    void noMetricsWithoutAMeterRegistry() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockMetrics.class));
    }

    @Test
    void noMetricsWithoutMicrometer() {
        runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockMetrics.class)
                        .hasSingleBean(LockClients.class));
    }

    @Test
    void userMetricsBeanBacksOff() {
        LockMetrics mine = new LockMetrics(new SimpleMeterRegistry());
        runner.withBean(SimpleMeterRegistry.class).withBean("mine", LockMetrics.class, () -> mine)
                .run(context -> assertThat(context.getBean(LockMetrics.class)).isSameAs(mine));
    }
}
