package dev.mortise.lock.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.tck.server.MariaDbServer;
import dev.mortise.lock.tck.server.PostgresServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lock operations never join the caller's transaction. The application's pool hands out
 * connections with autocommit off (as JPA setups do), the caller opens a transaction on
 * one of them, locks, and rolls back or commits: the lock stays exactly as the lock API
 * left it. Without the backend's own autocommit connection, the pool's rollback on return
 * would silently undo every grant.
 */
class TransactionIsolationTest {

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "h2"})
    void rollbackOfTheCallersTransactionLeavesTheLockHeld(String database) throws Exception {
        try (HikariDataSource pool = manualCommitPool(database);
             LockClient app = LockClient.builder(JdbcLockBackend.builder(pool).createTableIfMissing(true).build()).build();
             LockClient other = LockClient.builder(JdbcLockBackend.builder(pool).build()).build()) {
            String key = "tx:rollback:" + UUID.randomUUID();
            LockLease lease;
            try (Connection business = pool.getConnection()) {
                assertThat(business.getAutoCommit()).isFalse();
                business.createStatement().executeUpdate("INSERT INTO tx_ledger (note) VALUES ('" + key + "')");
                lease = app.acquire(key, Duration.ofSeconds(5));
                business.rollback();
            }
            assertThat(other.tryAcquire(key)).as("the rollback released the lock").isEmpty();
            assertThat(lease.isValid()).isTrue();
            lease.close(); // would throw LockLostException if the row had been rolled back
            assertThat(other.tryAcquire(key)).as("released by the lease, not before").hasValueSatisfying(LockLease::close);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "h2"})
    void commitOfTheCallersTransactionDoesNotReleaseTheLock(String database) throws Exception {
        try (HikariDataSource pool = manualCommitPool(database);
             LockClient app = LockClient.builder(JdbcLockBackend.builder(pool).createTableIfMissing(true).build()).build();
             LockClient other = LockClient.builder(JdbcLockBackend.builder(pool).build()).build()) {
            String key = "tx:commit:" + UUID.randomUUID();
            try (LockLease lease = app.acquire(key, Duration.ofSeconds(5))) {
                try (Connection business = pool.getConnection()) {
                    business.createStatement().executeUpdate("INSERT INTO tx_ledger (note) VALUES ('" + key + "')");
                    business.commit();
                }
                assertThat(other.tryAcquire(key)).as("the commit released the lock").isEmpty();
                assertThat(lease.isValid()).isTrue();
            }
            assertThat(other.tryAcquire(key)).hasValueSatisfying(LockLease::close);
        }
    }

    private static HikariDataSource manualCommitPool(String database) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setPoolName("tx-" + database);
        config.setMaximumPoolSize(6);
        config.setAutoCommit(false);
        switch (database) {
            case "postgresql" -> {
                PostgresServer server = TestDatabases.postgresServer();
                config.setJdbcUrl(server.jdbcUrl());
                config.setUsername(server.user());
            }
            case "mariadb" -> {
                MariaDbServer server = TestDatabases.mariadbServer();
                config.setJdbcUrl(server.jdbcUrl());
                config.setUsername(server.user());
            }
            default -> config.setJdbcUrl("jdbc:h2:mem:tx;DB_CLOSE_DELAY=-1");
        }
        HikariDataSource pool = new HikariDataSource(config);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS tx_ledger (note VARCHAR(200))");
            c.commit();
        }
        return pool;
    }
}
