package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.fencing.FenceDialect;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import dev.mortise.lock.spring.fencing.FenceRejectionListener;
import dev.mortise.lock.spring.fencing.FenceRejections;
import dev.mortise.lock.spring.fencing.Fences;
import dev.mortise.lock.spring.internal.FenceAdvisor;
import dev.mortise.lock.spring.internal.FenceCheck;
import dev.mortise.lock.spring.internal.FenceInterceptor;
import dev.mortise.lock.spring.internal.LockOperationSource;
import dev.mortise.lock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.util.Locale;
import java.util.Optional;

/**
 * Fencing enforced by the database (lock-fencing), when it is on the classpath: a
 * {@link JdbcFenceGuard} over the application's {@link DataSource}, {@link Fences} to check a
 * lease in the current transaction, the check of {@code @DistributedLock(fence = ...)} methods,
 * and the {@code mortise.lock.fence.rejected} counter.
 *
 * <p>Ordered after Boot's transaction auto-configuration on purpose: the fence advisor and
 * the transaction advisor both have the lowest precedence, and advisors of equal order keep
 * the order of their registration, so the fence check runs inside the transaction.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
        "dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration",
        "dev.mortise.lock.spring.autoconfigure.MortiseLockMetricsAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "mortise.lock.enabled", matchIfMissing = true)
@ConditionalOnClass({JdbcFenceGuard.class, DataSourceUtils.class, TransactionSynchronizationManager.class})
@EnableConfigurationProperties(MortiseLockProperties.class)
public final class MortiseLockFencingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FenceRejections lockFenceRejections(ObjectProvider<FenceRejectionListener> listeners) {
        return new FenceRejections(() -> listeners.orderedStream().toList());
    }

    /**
     * Asks the database nothing at start-up, so the application starts while it is down: the
     * dialect is mortise.lock.fence.dialect, else the one the DataSource's JDBC URL names, else
     * read at the first fence check, which also creates the table if mortise.lock.fence.create-table.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(DataSource.class)
    JdbcFenceGuard jdbcFenceGuard(DataSource dataSource, MortiseLockProperties properties,
                                  FenceRejections rejections) {
        MortiseLockProperties.Fence fence = properties.getFence();
        JdbcFenceGuard.Builder builder;
        try {
            builder = JdbcFenceGuard.builder(dataSource)
                    .tableName(fence.getTableName())
                    .createTableIfMissing(fence.isCreateTable())
                    .prepareLazily(true)
                    .onRejected(rejections);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("Cannot configure the fence guard (lock-fencing): " + e.getMessage()
                    + " Fix mortise.lock.fence.table-name, or define your own JdbcFenceGuard bean.", e);
        }
        dialect(fence.getDialect(), dataSource).ifPresent(builder::dialect);
        return builder.build();
    }

    /** The fence dialect known without a connection: the property, else the DataSource's JDBC URL. */
    static Optional<FenceDialect> dialect(String configured, DataSource dataSource) {
        if (configured == null || configured.isBlank()) {
            return DataSourceUrls.url(dataSource).flatMap(FenceDialect::forJdbcUrl);
        }
        return Optional.of(switch (configured.strip().toLowerCase(Locale.ROOT)) {
            case "postgresql", "postgres" -> FenceDialect.POSTGRESQL;
            case "mysql", "mariadb" -> FenceDialect.MYSQL;
            case "h2" -> FenceDialect.H2;
            default -> throw new IllegalStateException("mortise.lock.fence.dialect=" + configured.strip()
                    + " is not a dialect of the fence guard (lock-fencing); valid: postgresql, mysql (also for "
                    + "MariaDB), h2. Fix mortise.lock.fence.dialect, or remove it to take the dialect from the "
                    + "DataSource's JDBC URL.");
        });
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(DataSource.class)
    Fences lockFences(JdbcFenceGuard guard, DataSource dataSource) {
        return new Fences(guard, dataSource);
    }

    /**
     * The check behind {@code @DistributedLock(fence = ...)}: the application's {@link Fences}
     * (this configuration's or its own), adapted for the engine. Declared after
     * {@link #lockFences} so that the condition sees it.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(Fences.class)
    FenceCheck lockFenceCheck(Fences fences) {
        return new FencesFenceCheck(fences);
    }

    /** With proxies: the check of fenced methods, inside the lock advice and {@code @Transactional}. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = "mortise.lock.mode", havingValue = "proxy", matchIfMissing = true)
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static FenceAdvisor lockFenceAdvisor(LockOperationSource operations, ObjectProvider<FenceCheck> checks) {
        // The checks are looked up at the first fenced call: the advisor is built before the DataSource.
        return new FenceAdvisor(operations, new FenceInterceptor(operations, checks::getIfAvailable));
    }

    /** The {@code fence} health indicator: whether the fence table can be read. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.health.contributor.HealthIndicator",
            "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"})
    @ConditionalOnSingleCandidate(DataSource.class)
    @ConditionalOnEnabledHealthIndicator("fence")
    static class FenceHealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "fenceHealthIndicator")
        FenceTableHealthIndicator fenceHealthIndicator(JdbcFenceGuard guard, DataSource dataSource,
                                                       MortiseLockProperties properties) {
            return new FenceTableHealthIndicator(guard, dataSource, properties.getFence().isCreateTable());
        }
    }

    /** Counts refusals as mortise.lock.fence.rejected (tags backend, name). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(LockMetrics.class)
    static class FenceMetricsConfiguration {

        @Bean
        FenceRejectionListener lockFenceRejectedCounter(LockMetrics metrics) {
            return (backend, name, stale) -> metrics.fenceRejected(backend, name);
        }
    }
}
