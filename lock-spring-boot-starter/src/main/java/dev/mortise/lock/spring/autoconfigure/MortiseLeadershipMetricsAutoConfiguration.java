package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.Leaderships;
import dev.mortise.lock.spring.metrics.LeadershipMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics of leader election ({@link LeadershipMetrics}, {@code mortise.leadership.*}),
 * when the application has a {@link MeterRegistry} and leadership groups.
 */
@AutoConfiguration(after = MortiseLeadershipAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({MeterRegistry.class, Leaderships.class})
public final class MortiseLeadershipMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LeadershipMetrics leadershipMetrics(MeterRegistry registry) {
        return new LeadershipMetrics(registry);
    }

    /** Creates each group's meters once the groups exist. */
    @Bean
    @ConditionalOnMissingBean(name = "leadershipMetricsRegistration")
    SmartInitializingSingleton leadershipMetricsRegistration(LeadershipMetrics metrics,
                                                             ObjectProvider<Leaderships> leaderships) {
        return () -> leaderships.ifAvailable(metrics::register);
    }
}
