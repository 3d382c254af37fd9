package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.Leaderships;
import dev.mortise.lock.spring.actuate.LeadershipHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * A {@code leadership} health contributor ({@link LeadershipHealthIndicator}): each configured
 * leadership group's state and epoch as details; only when groups are configured. Disable with
 * {@code management.health.leadership.enabled=false}.
 */
@AutoConfiguration(after = MortiseLeadershipAutoConfiguration.class,
        beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean(Leaderships.class)
@ConditionalOnEnabledHealthIndicator("leadership")
@ConditionalOnLeadershipGroups
public final class MortiseLeadershipHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "leadershipHealthIndicator")
    LeadershipHealthIndicator leadershipHealthIndicator(Leaderships leaderships) {
        return new LeadershipHealthIndicator(leaderships);
    }
}
