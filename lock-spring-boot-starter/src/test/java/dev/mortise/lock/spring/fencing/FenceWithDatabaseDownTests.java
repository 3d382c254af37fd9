package dev.mortise.lock.spring.fencing;

import dev.mortise.lock.fencing.FenceDialect;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.autoconfigure.DataSourceWithoutGetters;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockFencingAutoConfiguration;
import dev.mortise.lock.tck.server.PostgresServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import javax.sql.DataSource;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 29 item 1: lock-fencing on the class path does not make start-up need the database.
 * A real PostgreSQL whose port is reserved but which is not running when the context starts:
 * the context starts (dialect from the JDBC URL or {@code mortise.lock.fence.dialect}, nothing
 * asked of the database), and once the server is up the first fenced call creates the table.
 */
class FenceWithDatabaseDownTests {

    private final PostgresServer server = new PostgresServer();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockFencingAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=local")
            .withUserConfiguration(Transactions.class)
            .withBean(Ledger.class);

    @AfterEach
    void stop() {
        server.close();
    }

    private PGSimpleDataSource postgres() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(server.jdbcUrl());
        dataSource.setUser(server.user());
        dataSource.setConnectTimeout(1);
        return dataSource;
    }

    /** A DataSource that does not tell its URL (a wrapper of the application's own). */
    private DataSource opaque() {
        return new DataSourceWithoutGetters(postgres());
    }

    @Test
    void startsWithTheDatabaseDownWithoutCreateTableDialectFromTheUrl() {
        runner.withPropertyValues("mortise.lock.fence.create-table=false")
                .withBean(DataSource.class, this::postgres)
                .run(context -> {
                    assertThat(context).as("started with the database down").hasNotFailed()
                            .hasSingleBean(JdbcFenceGuard.class).hasSingleBean(Fences.class);
                    assertThat(context.getBean(JdbcFenceGuard.class).dialect()).isEqualTo(FenceDialect.POSTGRESQL);
                });
    }

    @Test
    void startsWithTheDatabaseDownAndCreatesTheTableAtTheFirstFencedCall() {
        runner.withPropertyValues("mortise.lock.fence.create-table=true")
                .withBean(DataSource.class, this::postgres)
                .run(context -> {
                    assertThat(context).as("started with the database down").hasNotFailed();
                    server.start();
                    String id = "λ-" + UUID.randomUUID();
                    context.getBean(Ledger.class).write(id);
                    Long token = new JdbcTemplate(context.getBean(DataSource.class))
                            .queryForObject("SELECT token FROM mortise_fences WHERE resource = ?", Long.class,
                                    "ledger:" + id);
                    assertThat(token).isPositive();
                });
    }

    @Test
    void aDataSourceThatHidesItsUrlStartsToo() {
        runner.withPropertyValues("mortise.lock.fence.create-table=true")
                .withBean(DataSource.class, this::opaque)
                .run(context -> {
                    assertThat(context).as("started with the database down").hasNotFailed();
                    assertThat(context.getBean(JdbcFenceGuard.class).dialect()).as("read at the first check")
                            .isNull();
                    server.start();
                    context.getBean(Ledger.class).write("opaque");
                    assertThat(context.getBean(JdbcFenceGuard.class).dialect()).isEqualTo(FenceDialect.POSTGRESQL);
                });
    }

    /** Health shows the state of the fence table, which start-up no longer checks. */
    @Test
    void healthReportsTheDatabaseThenTheMissingTableThenUp() {
        runner.withPropertyValues("mortise.lock.fence.create-table=false")
                .withBean(DataSource.class, this::postgres)
                .run(context -> {
                    HealthIndicator fence = context.getBean("fenceHealthIndicator", HealthIndicator.class);
                    Health down = fence.health();
                    assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(String.valueOf(down.getDetails().get("error")))
                            .contains("Cannot reach the database of fence table mortise_fences");

                    server.start();
                    Health missing = fence.health();
                    assertThat(missing.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(String.valueOf(missing.getDetails().get("error")))
                            .contains("mortise_fences").contains("mortise.lock.fence.create-table=true");

                    new JdbcTemplate(context.getBean(DataSource.class))
                            .execute(FenceDialect.POSTGRESQL.ddl("mortise_fences"));
                    Health up = fence.health();
                    assertThat(up.getStatus()).isEqualTo(Status.UP);
                    assertThat(up.getDetails()).containsEntry("table", "mortise_fences")
                            .containsEntry("dialect", "postgresql");
                });
        runner.withPropertyValues("mortise.lock.fence.create-table=true", "management.health.fence.enabled=false")
                .withBean(DataSource.class, this::postgres)
                .run(context -> assertThat(context).doesNotHaveBean("fenceHealthIndicator"));
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .withBean(DataSource.class, this::postgres)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(JdbcFenceGuard.class)
                        .doesNotHaveBean("fenceHealthIndicator"));
    }

    @Test
    void theDialectProperty() {
        runner.withPropertyValues("mortise.lock.fence.dialect=postgres")
                .withBean(DataSource.class, this::opaque)
                .run(context -> assertThat(context.getBean(JdbcFenceGuard.class).dialect())
                        .isEqualTo(FenceDialect.POSTGRESQL));
        runner.withPropertyValues("mortise.lock.fence.dialect=oracle")
                .withBean(DataSource.class, this::opaque)
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("mortise.lock.fence.dialect=oracle")
                        .hasStackTraceContaining("postgresql, mysql (also for MariaDB), h2"));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Transactions {
        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }

    public static class Ledger {
        @Transactional
        @DistributedLock(key = "'ledger:' + #id", fence = "'ledger:' + #id")
        public void write(String id) {
        }
    }
}
