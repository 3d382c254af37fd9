package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.jdbc.JdbcDialect;
import dev.mortise.lock.jdbc.JdbcLockBackend;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15 item 11: the JDBC backend's dialect is chosen without a connection, from
 * {@code mortise.lock.jdbc.dialect} or the DataSource's JDBC URL, so a database that is
 * down does not stop start-up.
 */
class JdbcDialectsTests {

    /** A port nobody listens on: every connection is refused. */
    private static final String NOWHERE = "127.0.0.1:" + dev.mortise.lock.tck.server.FreePorts.next();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                    MortiseLockAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=jdbc");

    @Test
    void theUrlOfCommonDataSourcesNamesTheDialect() {
        PGSimpleDataSource postgres = new PGSimpleDataSource();
        postgres.setURL("jdbc:postgresql://" + NOWHERE + "/app");
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:x");
        DriverManagerDataSource mariadb = new DriverManagerDataSource("jdbc:mariadb://" + NOWHERE + "/app");
        assertThat(JdbcDialects.choose(null, postgres, "mortise.lock.jdbc")).contains(JdbcDialect.POSTGRESQL);
        assertThat(JdbcDialects.choose(null, h2, "mortise.lock.jdbc")).contains(JdbcDialect.H2);
        assertThat(JdbcDialects.choose(null, mariadb, "mortise.lock.jdbc")).contains(JdbcDialect.MYSQL);
        assertThat(JdbcDialects.choose(null, new TransactionAwareDataSourceProxy(postgres), "mortise.lock.jdbc"))
                .as("through Spring's delegating proxies").contains(JdbcDialect.POSTGRESQL);
        assertThat(JdbcDialects.choose(null, new DelegatingDataSource(), "mortise.lock.jdbc")).isEmpty();
        assertThat(JdbcDialects.choose("MariaDB", h2, "mortise.lock.jdbc")).as("the property wins")
                .contains(JdbcDialect.MYSQL);
    }

    @Test
    void startsWithTheDatabaseDownWhenTheUrlNamesTheDialect() {
        PGSimpleDataSource down = new PGSimpleDataSource();
        down.setURL("jdbc:postgresql://" + NOWHERE + "/app");
        runner.withBean(DataSource.class, () -> down).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(JdbcLockBackend.class).dialect()).isEqualTo(JdbcDialect.POSTGRESQL);
            assertThat(context.getBean(LockClient.class).backendName()).isEqualTo("jdbc");
        });
    }

    @Test
    void startsWithTheDatabaseDownWhenThePropertyNamesTheDialect() {
        runner.withBean(DataSource.class, UrlLessDataSource::new)
                .withPropertyValues("mortise.lock.jdbc.dialect=postgresql", "mortise.lock.jdbc.create-table=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(JdbcLockBackend.class).dialect()).isEqualTo(JdbcDialect.POSTGRESQL);
                });
    }

    @Test
    void withoutEitherADownDatabaseFailsStartUpNamingTheProperty() {
        runner.withBean(DataSource.class, UrlLessDataSource::new)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("could not detect the SQL dialect")
                        .hasStackTraceContaining("Set mortise.lock.jdbc.dialect (postgresql, mysql or h2)"));
    }

    /**
     * A pool waiting for a connection to a database that is down (HikariCP waits its
     * connection-timeout, 30 s by default): the start-up check of the lock table gives up
     * after the operation timeout and leaves the database to health.
     */
    @Test
    void theStartUpTableCheckDoesNotWaitForAPoolThatWaitsForADownDatabase() {
        long start = System.nanoTime();
        runner.withBean(DataSource.class, WaitingPool::new).withPropertyValues("mortise.lock.jdbc.operation-timeout=1s")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isLessThan(java.time.Duration.ofSeconds(15));
    }

    /** A pool whose getConnection waits 30 s for a database that is down, then fails. */
    static final class WaitingPool extends PGSimpleDataSource {
        WaitingPool() {
            setURL("jdbc:postgresql://" + NOWHERE + "/app");
        }

        @Override
        public java.sql.Connection getConnection() throws java.sql.SQLException {
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new java.sql.SQLTransientConnectionException("pool - Connection is not available, request timed out",
                    "08001");
        }
    }

    @Test
    void anUnknownDialectFailsStartUpListingTheValidOnes() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:dialects");
        runner.withBean(DataSource.class, () -> h2).withPropertyValues("mortise.lock.jdbc.dialect=oracle")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("mortise.lock.jdbc.dialect=oracle is not a dialect")
                        .hasStackTraceContaining("postgresql, mysql (also for MariaDB), h2"));
    }

    /** A data source that does not tell its URL, over a database that is down. */
    static final class UrlLessDataSource extends DelegatingDataSource {
        UrlLessDataSource() {
            PGSimpleDataSource down = new PGSimpleDataSource();
            down.setURL("jdbc:postgresql://" + NOWHERE + "/app");
            setTargetDataSource(new DataSourceWithoutGetters(down));
        }
    }
}
