package dev.mortise.lock.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.tck.server.FreePorts;
import dev.mortise.lock.tck.server.PostgresServer;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A drained pool or a database that went away gives {@link LockBackendException} within
 * the timeouts, never a hang, and the backend works again once the database is back.
 */
class OutageTest {

    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration SLACK = Duration.ofSeconds(5);

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void exhaustedPoolGivesBackendExceptionWithinTheTimeout(String database) throws Exception {
        String url = database.equals("postgresql") ? TestDatabases.postgresServer().jdbcUrl()
                : TestDatabases.mariadbServer().jdbcUrl();
        String user = database.equals("postgresql") ? "postgres" : "root";
        try (HikariDataSource pool = TestDatabases.pool("tiny-" + database, url, user, 1, 1000);
             LockClient client = LockClient.builder(JdbcLockBackend.builder(pool).createTableIfMissing(true)
                     .operationTimeout(OPERATION_TIMEOUT).build()).build()) {
            String key = "outage:pool:" + UUID.randomUUID();
            try (Connection hog = pool.getConnection()) {
                assertThat(hog.isValid(1)).as("the pool's only connection, held here").isTrue();
                long start = System.nanoTime();
                assertThatThrownBy(() -> client.tryAcquire(key)).isInstanceOf(LockBackendException.class)
                        .hasMessageContaining(key).hasMessageContaining("jdbc").hasMessageContaining("pool");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(OPERATION_TIMEOUT.plus(SLACK));
            }
            assertThat(client.tryAcquire(key)).as("works once a connection is free").hasValueSatisfying(LockLease::close);
        }
    }

    @Test
    void h2ServerGoneGivesBackendExceptionAndHeldLeasesExpireLocally() throws Exception {
        int port = FreePorts.next();
        Server server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
        try (HikariDataSource pool = TestDatabases.pool("h2-tcp", "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:outage", "sa",
                4, 1500);
             LockClient client = LockClient.builder(JdbcLockBackend.builder(pool).createTableIfMissing(true)
                     .operationTimeout(OPERATION_TIMEOUT).build()).defaultLease(Duration.ofSeconds(2)).build()) {
            LockLease held = client.acquire("outage:held:" + UUID.randomUUID(), Duration.ofSeconds(5));
            server.stop();
            String key = "outage:h2:" + UUID.randomUUID();
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.acquire(key, Duration.ofSeconds(30))).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining(key);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(OPERATION_TIMEOUT.plus(SLACK));
            // The watchdog cannot renew: the lease stops being valid when its local validity ends.
            long deadline = System.nanoTime() + Duration.ofSeconds(2).plus(SLACK).toNanos();
            while (held.isValid() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(held.isValid()).isFalse();
        } finally {
            server.stop();
        }
    }

    @Test
    void postgresDownGivesBackendExceptionWithinTheTimeoutAndRecovers() throws Exception {
        PostgresServer server = TestDatabases.postgresServer();
        try (HikariDataSource pool = TestDatabases.pool("pg-outage", server.jdbcUrl(), "postgres", 4, 1500);
             LockClient client = LockClient.builder(JdbcLockBackend.builder(pool).createTableIfMissing(true)
                     .operationTimeout(OPERATION_TIMEOUT).build()).build()) {
            String key = "outage:pg:" + UUID.randomUUID();
            client.tryAcquire(key).orElseThrow().close();
            server.stop();
            try {
                long start = System.nanoTime();
                assertThatThrownBy(() -> client.tryAcquire(key)).isInstanceOf(LockBackendException.class)
                        .hasMessageContaining(key).hasMessageContaining("jdbc");
                assertThatThrownBy(client::ping).isInstanceOf(LockBackendException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(OPERATION_TIMEOUT.multipliedBy(2).plus(SLACK));
            } finally {
                server.start();
            }
            assertThat(client.tryAcquire(key)).as("works again after the restart").hasValueSatisfying(LockLease::close);
        }
    }

    /**
     * A stopped (SIGSTOP) server answers neither queries nor the cancel request behind a
     * query timeout; the network timeout the backend sets per operation still ends the wait.
     * The acquire the server ran after it woke up was granted with nobody to hear it: the
     * backend releases it in the background, long before its 60 s lease would end.
     */
    @Test
    void pausedPostgresGivesBackendExceptionWithinTheTimeout() throws Exception {
        PostgresServer server = TestDatabases.postgresServer();
        try (HikariDataSource pool = TestDatabases.pool("pg-paused", server.jdbcUrl(), "postgres", 4, 1500);
             LockClient client = LockClient.builder(JdbcLockBackend.builder(pool).createTableIfMissing(true)
                     .operationTimeout(OPERATION_TIMEOUT).build()).defaultLease(Duration.ofSeconds(60)).build()) {
            pool.setValidationTimeout(1000);
            String key = "outage:paused:" + UUID.randomUUID();
            client.tryAcquire(key).orElseThrow().close();
            server.pause();
            try {
                long start = System.nanoTime();
                assertThatThrownBy(() -> client.tryAcquire(key)).isInstanceOf(LockBackendException.class)
                        .hasMessageContaining(key);
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .isLessThan(OPERATION_TIMEOUT.plusSeconds(1).plus(SLACK));
            } finally {
                server.resume();
            }
            long resumed = System.nanoTime();
            try (LockLease lease = client.acquire(key, Duration.ofSeconds(30))) {
                assertThat(lease.isValid()).isTrue();
            }
            assertThat(Duration.ofNanos(System.nanoTime() - resumed)).as("the unconfirmed grant was cleaned up")
                    .isLessThan(Duration.ofSeconds(30));
        }
    }
}
