package dev.mortise.lock.integration.autoconfigure;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.integration.MortiseLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Gives a Spring Integration application its {@link LockRegistry} from the Mortise backend it
 * configured: a {@link MortiseLockRegistry} over the {@link LockClient} bean (the starter's
 * default client), unless the application declares its own {@code LockRegistry}. Runs after the
 * starter's auto-configuration, named by string so that this module needs no starter on the
 * classpath. Off with {@code mortise.integration.enabled=false}.
 */
@AutoConfiguration(afterName = "dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration")
@ConditionalOnClass({LockRegistry.class, LockClient.class})
@ConditionalOnBooleanProperty(name = "mortise.integration.enabled", matchIfMissing = true)
@EnableConfigurationProperties(MortiseLockRegistryProperties.class)
public final class MortiseLockRegistryAutoConfiguration {

    @Bean
    @ConditionalOnBean(LockClient.class)
    @ConditionalOnMissingBean(LockRegistry.class)
    MortiseLockRegistry mortiseLockRegistry(LockClient lockClient, MortiseLockRegistryProperties properties) {
        return new MortiseLockRegistry(lockClient, properties.getKeyPrefix());
    }
}
