package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.actuate.LockBackendHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.beans.factory.ObjectProvider;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code locks} health contributor with one {@link LockBackendHealthIndicator} per
 * configured backend (reachable, latency), when Spring Boot's health support is on the
 * classpath. Disable with {@code management.health.locks.enabled=false}.
 */
@AutoConfiguration(after = MortiseLockAutoConfiguration.class,
        beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean(LockClients.class)
@ConditionalOnEnabledHealthIndicator("locks")
public final class MortiseLockHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "locksHealthContributor")
    HealthContributor locksHealthContributor(LockClients clients, ObjectProvider<LockBackendCheck> checks) {
        List<LockBackendCheck> all = checks.orderedStream().toList();
        Map<String, HealthIndicator> indicators = new LinkedHashMap<>();
        clients.asMap().forEach((name, client) -> indicators.put(name, new LockBackendHealthIndicator(client,
                all.stream().filter(check -> check.backend().equals(name)).<Runnable>map(check -> check::check)
                        .toList())));
        return CompositeHealthContributor.fromMap(indicators);
    }
}
