package dev.mortise.lock.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Array;
import java.time.Duration;
import java.time.temporal.Temporal;
import java.util.Calendar;
import java.util.Date;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients whose clocks disagree cannot take an unexpired lock from each other, because
 * expiry is judged by the database's clock alone. Two views of "a far-off client":
 * sessions whose time zones are 25 or 26 hours apart (what a JVM in another zone gets: the
 * PostgreSQL driver sends the JVM's zone as the session's), and a check of everything the
 * backend sends — SQL text and parameters — for any time taken from the application.
 */
class ClockSkewTest {

    private static final String EAST = "Pacific/Kiritimati"; // UTC+14
    private static final String WEST = "Etc/GMT+12";         // UTC-12

    @Test
    void postgresSessionsInFarApartTimeZonesAgreeOnExpiry() throws Exception {
        String url = TestDatabases.postgresServer().jdbcUrl();
        try (HikariDataSource east = pool("pg-east", url, "postgres", "SET TIME ZONE '" + EAST + "'");
             HikariDataSource west = pool("pg-west", url, "postgres", "SET TIME ZONE '" + WEST + "'")) {
            assertFarClocksAgree(east, west);
        }
    }

    @Test
    void mariadbSessionsInFarApartTimeZonesAgreeOnExpiry() throws Exception {
        String url = TestDatabases.mariadbServer().jdbcUrl();
        try (HikariDataSource east = pool("maria-east", url, "root", "SET time_zone = '+13:00'");
             HikariDataSource west = pool("maria-west", url, "root", "SET time_zone = '-12:00'")) {
            assertFarClocksAgree(east, west);
        }
    }

    /** A pool whose every connection runs {@code initSql} first: a session with its own idea of the time of day. */
    private static HikariDataSource pool(String name, String url, String user, String initSql) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("test-" + name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(2);
        config.setConnectionInitSql(initSql);
        return new HikariDataSource(config);
    }

    private static void assertFarClocksAgree(DataSource east, DataSource west) throws InterruptedException {
        try (JdbcLockBackend eastBackend = JdbcLockBackend.builder(east).createTableIfMissing(true).build();
             JdbcLockBackend westBackend = JdbcLockBackend.builder(west).build()) {
            String key = "skew:" + UUID.randomUUID();
            Grant held = eastBackend.tryAcquire(new LockRequest(key, "east", Duration.ofMillis(1500), false))
                    .grant().orElseThrow();
            Attempt stolen = westBackend.tryAcquire(new LockRequest(key, "west", Duration.ofSeconds(5), false));
            assertThat(stolen.isGranted()).as("a client a day behind takes an unexpired lock").isFalse();
            assertThat(stolen.holderRemaining()).hasValueSatisfying(r ->
                    assertThat(r).isLessThanOrEqualTo(Duration.ofMillis(1500)));
            Thread.sleep(2000);
            Grant next = westBackend.tryAcquire(new LockRequest(key, "west", Duration.ofSeconds(5), false))
                    .grant().orElseThrow(() -> new AssertionError("the expired lock was not free for the far client"));
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(eastBackend.tryAcquire(new LockRequest(key, "east-2", Duration.ofSeconds(5), false)).isGranted())
                    .as("a client a day ahead takes an unexpired lock").isFalse();
            westBackend.release(next);
        }
    }

    @Test
    void noStatementCarriesTheApplicationsTime() {
        for (DataSource target : List.of(TestDatabases.postgres(), TestDatabases.mariadb(),
                H2MemoryContractTest.h2("jdbc:h2:mem:skew;DB_CLOSE_DELAY=-1"))) {
            RecordingDataSource recording = new RecordingDataSource(target);
            Duration lease = Duration.ofMillis(1234);
            try (JdbcLockBackend backend = JdbcLockBackend.builder(recording).createTableIfMissing(true).build()) {
                String key = "no-app-time:" + UUID.randomUUID();
                Grant grant = backend.tryAcquire(new LockRequest(key, "one", lease, false)).grant().orElseThrow();
                backend.tryAcquire(new LockRequest(key, "two", lease, false));
                backend.renew(grant, lease);
                backend.renewAll(List.of(grant), lease);
                backend.release(grant);
            }
            assertThat(recording.statements).isNotEmpty();
            for (Object parameter : recording.parameters) {
                if (parameter == null) {
                    continue; // the original key, kept only for hashed keys
                }
                assertThat(parameter).as("parameter sent to %s", backendOf(target))
                        .isNotInstanceOfAny(Date.class, Calendar.class, Temporal.class);
                if (parameter instanceof Number number) {
                    assertThat(number.longValue()).as("the only number sent is the lease, in ms").isEqualTo(1234L);
                } else {
                    assertThat(parameter).isInstanceOfAny(String.class, byte[].class, Array.class);
                }
            }
        }
    }

    private static String backendOf(DataSource dataSource) {
        return dataSource.getClass().getSimpleName();
    }
}
