package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.jdbc.JdbcLockBackend;
import dev.mortise.lock.jdbc.JdbcLockBackendBuilder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * The JDBC backend (lock-jdbc) over the application's {@link DataSource} (the primary one
 * if several). The dialect is {@code mortise.lock.jdbc.dialect}, else the one the
 * DataSource's JDBC URL names (see {@link JdbcDialects}), else detected from the database;
 * with it known, a database that is down at start-up does not stop the application.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(JdbcLockBackend.class)
@ConditionalOnLockBackend(value = "jdbc", clientType = "javax.sql.DataSource")
@EnableConfigurationProperties(JdbcLockProperties.class)
class JdbcBackendConfiguration {

    @Bean
    @ConditionalOnMissingBean
    JdbcLockBackend jdbcLockBackend(JdbcLockProperties properties, ObjectProvider<DataSource> dataSources) {
        return build(properties, dataSources, "mortise.lock.jdbc");
    }

    /** The lock table check of health; start-up already checked it. */
    @Bean
    @ConditionalOnMissingBean(name = "jdbcLockTableCheck")
    LockBackendCheck jdbcLockTableCheck(JdbcLockBackend backend, ObjectProvider<DataSource> dataSources) {
        return new JdbcLockTable(backend.name(), dataSources.getIfUnique(), backend, "mortise.lock.jdbc");
    }

    /** Builds the backend from {@code properties} (bound at {@code prefix}) over the primary DataSource. */
    static JdbcLockBackend build(JdbcLockProperties properties, ObjectProvider<DataSource> dataSources, String prefix) {
        DataSource dataSource = dataSources.getIfUnique();
        if (dataSource == null) {
            throw new IllegalStateException("The 'jdbc' lock backend needs a DataSource and the application has "
                    + (dataSources.stream().findAny().isPresent() ? "several without a @Primary one" : "none")
                    + ": configure spring.datasource.* (spring-boot-starter-jdbc), mark one DataSource @Primary, "
                    + "or set mortise.lock.jdbc.enabled=false.");
        }
        JdbcLockBackend backend;
        try {
            JdbcLockBackendBuilder builder = JdbcLockBackend.builder(dataSource)
                    .createTableIfMissing(properties.isCreateTable())
                    .fencingTokens(properties.getFencingTokens());
            // Known without a connection, the dialect lets the application start while the database is down.
            JdbcDialects.choose(properties.getDialect(), dataSource, prefix).ifPresent(builder::dialect);
            if (properties.getTableName() != null) {
                builder.tableName(properties.getTableName());
            }
            if (properties.getOperationTimeout() != null) {
                builder.operationTimeout(properties.getOperationTimeout());
            }
            if (properties.getListenForReleases() != null) {
                builder.listenForReleases(properties.getListenForReleases());
            }
            backend = builder.build();
        } catch (LockBackendException e) {
            // The dialect was not known from the DataSource's URL, and the database could not be asked.
            throw new IllegalStateException("Cannot configure the 'jdbc' lock backend: " + dev.mortise.lock.spring.internal.SpringTerms.translate(e.getMessage())
                    + ". Set " + prefix + ".dialect (postgresql, mysql or h2) so that the application can start "
                    + "while the database is down, or set mortise.lock.jdbc.enabled=false.", e);
        } catch (IllegalStateException e) {
            throw e.getMessage().startsWith(prefix) ? e : new IllegalStateException("Cannot configure the 'jdbc' "
                    + "lock backend: " + dev.mortise.lock.spring.internal.SpringTerms.translate(e.getMessage()) + ". Check " + prefix + ".* (create-table=true creates the "
                    + "lock table), or set mortise.lock.jdbc.enabled=false.", e);
        } catch (RuntimeException e) {
            throw new IllegalStateException("Cannot configure the 'jdbc' lock backend: " + dev.mortise.lock.spring.internal.SpringTerms.translate(e.getMessage())
                    + ". Check " + prefix + ".* (create-table=true creates the lock table), or set "
                    + "mortise.lock.jdbc.enabled=false.", e);
        }
        if (!properties.isCreateTable()) {
            try {
                new JdbcLockTable(prefix.substring(prefix.lastIndexOf('.') + 1), dataSource, backend, prefix)
                        .checkIfReachable(properties.getOperationTimeout() != null ? properties.getOperationTimeout()
                                : Duration.ofSeconds(5));
            } catch (IllegalStateException e) {
                backend.close();
                throw e;
            }
        }
        return backend;
    }
}
