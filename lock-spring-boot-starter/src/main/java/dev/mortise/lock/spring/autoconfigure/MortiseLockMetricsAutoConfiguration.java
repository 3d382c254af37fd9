package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.spring.internal.LockObserver;
import dev.mortise.lock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics of Mortise locks ({@link LockMetrics}), when the application has a
 * {@link MeterRegistry}: a listener on every auto-configured lock client (annotated and
 * programmatic locks alike), whose meters exist from start-up.
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

    /** Creates each client's meters once the clients exist, so they are there before the first lock. */
    @Bean
    SmartInitializingSingleton lockMetricsRegistration(LockMetrics metrics, ObjectProvider<LockClients> clients) {
        return () -> clients.ifAvailable(all -> all.asMap().values()
                .forEach(client -> metrics.register(client.backendName())));
    }

    /** {@code outcome=error} for annotated acquires the backend failed (the clients tell no acquire event then). */
    @Bean
    LockObserver lockMetricsErrorObserver(LockMetrics metrics) {
        return (operation, backend, key) -> {
            long start = System.nanoTime();
            return new LockObserver.Acquisition() {
                @Override
                public void notAcquired(LockObserver.Outcome outcome, Throwable failure) {
                    if (outcome == LockObserver.Outcome.ERROR) {
                        metrics.acquireFailed(backend, operation.name(), operation.mode(),
                                System.nanoTime() - start);
                    }
                }

                @Override
                public Runnable acquired() {
                    return () -> { };
                }
            };
        };
    }
}
