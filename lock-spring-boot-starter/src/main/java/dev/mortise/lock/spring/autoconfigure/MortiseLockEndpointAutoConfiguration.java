package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.Leaderships;
import dev.mortise.lock.spring.LockClients;
import org.springframework.beans.factory.ObjectProvider;
import dev.mortise.lock.spring.actuate.ForceReleaseLocksEndpoint;
import dev.mortise.lock.spring.actuate.LocksEndpoint;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code locks} actuator endpoint, when the actuator is on the classpath and the
 * endpoint is exposed ({@code management.endpoints.web.exposure.include=locks}): read-only
 * ({@link LocksEndpoint}) unless {@code mortise.lock.actuator.force-release.enabled=true}
 * adds the force-release write operation ({@link ForceReleaseLocksEndpoint}).
 */
@AutoConfiguration(after = MortiseLockAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(LockClients.class)
@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
public final class MortiseLockEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LocksEndpoint locksEndpoint(LockClients clients, Environment environment,
                                ObjectProvider<Leaderships> leaderships) {
        // Bound directly: the endpoint does not depend on the rest of MortiseLockProperties.
        boolean forceRelease = Binder.get(environment).bind("mortise.lock.actuator.force-release.enabled",
                Boolean.class).orElse(false);
        LocksEndpoint endpoint = forceRelease ? new ForceReleaseLocksEndpoint(clients) : new LocksEndpoint(clients);
        leaderships.ifAvailable(endpoint::setLeaderships);
        return endpoint;
    }
}
