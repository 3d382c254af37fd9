package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.internal.LockObserver;
import dev.mortise.lock.spring.metrics.LockObservationMeterHandler;
import dev.mortise.lock.spring.metrics.LockObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Micrometer Observations of {@code @DistributedLock} acquires ({@link LockObservations}),
 * when the application has an {@link ObservationRegistry} (traces of lock waits), with no
 * meters derived from them ({@link LockObservationMeterHandler}).
 */
@AutoConfiguration(afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBooleanProperty(name = "mortise.lock.enabled", matchIfMissing = true)
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
public final class MortiseLockObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockObservations lockObservations(ObservationRegistry registry) {
        return new LockObservations(registry);
    }

    /** Reports {@code @DistributedLock} acquires to every {@link LockObservations} bean, in order. */
    @Bean
    @ConditionalOnMissingBean(name = "lockObservationsObserver")
    LockObserver lockObservationsObserver(ObjectProvider<LockObservations> observations) {
        return LockObserver.composite(observations.orderedStream().<LockObserver>map(LockObservationsObserver::new)
                .toList());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.observation.MeterObservationHandler")
    static class MeterHandlerConfiguration {

        @Bean
        @Order(Ordered.HIGHEST_PRECEDENCE)
        @ConditionalOnMissingBean
        LockObservationMeterHandler lockObservationMeterHandler() {
            return new LockObservationMeterHandler();
        }
    }
}
