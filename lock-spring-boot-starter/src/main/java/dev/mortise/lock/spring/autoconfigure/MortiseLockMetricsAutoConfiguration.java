package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics of Mortise locks ({@link LockMetrics}), when the application has a
 * {@link MeterRegistry}. The metrics are fed by the lock clients and the
 * {@code @DistributedLock} engine, which pick this bean up.
 */
@AutoConfiguration(afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnBooleanProperty(name = "mortise.lock.enabled", matchIfMissing = true)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class MortiseLockMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockMetrics lockMetrics(MeterRegistry registry) {
        return new LockMetrics(registry);
    }
}
