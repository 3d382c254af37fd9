package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.actuate.LocksEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code locks} actuator endpoint ({@link LocksEndpoint}), when the actuator is on the
 * classpath and the endpoint is exposed ({@code management.endpoints.web.exposure.include=locks}).
 */
@AutoConfiguration(after = MortiseLockAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(LockClients.class)
@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
public final class MortiseLockEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LocksEndpoint locksEndpoint(LockClients clients) {
        return new LocksEndpoint(clients);
    }
}
