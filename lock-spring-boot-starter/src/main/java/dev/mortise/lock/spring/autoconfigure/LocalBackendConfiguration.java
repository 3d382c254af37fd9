package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.local.LocalLockBackend;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The in-process backend, only on request ({@code mortise.lock.backend=local} or
 * {@code mortise.lock.local.enabled=true}): locks that hold within one JVM must never be
 * picked silently for a service that runs several instances.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(LocalBackendConfiguration.LocalRequested.class)
class LocalBackendConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LocalLockBackend localLockBackend() {
        return LocalLockBackend.create();
    }

    static final class LocalRequested extends AnyNestedCondition {

        LocalRequested() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnProperty(name = "mortise.lock.backend", havingValue = "local")
        static final class DefaultBackend {
        }

        @ConditionalOnBooleanProperty("mortise.lock.local.enabled")
        static final class Enabled {
        }
    }
}
