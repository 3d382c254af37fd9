package dev.mortise.lock.shedlock.autoconfigure;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.shedlock.MortiseLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Gives an {@code @EnableSchedulerLock} application ShedLock's {@link LockProvider} from the
 * Mortise backend it configured: a {@link MortiseLockProvider} over the {@link LockClient}
 * bean (the starter's default client), unless the application declares its own
 * {@code LockProvider}. Runs after the starter's auto-configuration, named by string so that
 * this module needs no starter on the classpath (an application that builds its own
 * {@code LockClient} bean gets the provider too). Off with {@code mortise.shedlock.enabled=false}.
 */
@AutoConfiguration(afterName = "dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration")
@ConditionalOnClass({LockProvider.class, LockClient.class})
@ConditionalOnBooleanProperty(name = "mortise.shedlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(MortiseShedLockProperties.class)
public final class MortiseShedLockAutoConfiguration {

    @Bean
    @ConditionalOnBean(LockClient.class)
    @ConditionalOnMissingBean(LockProvider.class)
    MortiseLockProvider mortiseShedLockProvider(LockClient lockClient, MortiseShedLockProperties properties) {
        return MortiseLockProvider.builder(lockClient).keyPrefix(properties.getKeyPrefix()).build();
    }
}
