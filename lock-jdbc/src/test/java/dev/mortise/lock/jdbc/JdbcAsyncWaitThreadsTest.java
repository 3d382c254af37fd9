package dev.mortise.lock.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link JdbcLockBackend#acquireAsync} holds no thread per waiting request (issue 32): waits on
 * distinct keys held by another owner — exclusive, shared behind a writer, and permits of a full
 * semaphore — add fewer than 30 threads to the JVM while they all wait: 300 on PostgreSQL (woken by
 * NOTIFY) and 120 on H2 (polling). Released, every one is granted, and nothing is left on the server.
 */
class JdbcAsyncWaitThreadsTest {

    private static final Duration LEASE = Duration.ofMinutes(2);

    @Test
    void postgresWaitersHoldNoThreadEach() throws Exception {
        waitersHoldNoThreadEach(TestDatabases.postgres(), "CURRENT_TIMESTAMP", 300);
    }

    @Test
    void h2WaitersHoldNoThreadEach() throws Exception {
        try (HikariDataSource pool = TestDatabases.pool("h2-async", "jdbc:h2:mem:async-threads;DB_CLOSE_DELAY=-1", "sa",
                8)) {
            waitersHoldNoThreadEach(pool, "CURRENT_TIMESTAMP", 120); // fewer: every waiter polls, on a slow CI machine
        }
    }

    private void waitersHoldNoThreadEach(DataSource dataSource, String now, int waiters) throws Exception {
        String prefix = "async-threads:" + UUID.randomUUID() + ":";
        try (JdbcLockBackend backend = JdbcLockBackend.builder(dataSource).createTableIfMissing(true).build()) {
            warmUp(backend, prefix);
            List<Grant> held = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                held.add(backend.tryAcquire(request(prefix + i, "holder-" + i, i, false)).grant().orElseThrow());
            }
            int before = liveThreads();
            int peak = before;
            List<CompletableFuture<Optional<Grant>>> waits = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                waits.add(backend.acquireAsync(request(prefix + i, "waiter-" + i, i, true), Duration.ofMinutes(2)));
                peak = Math.max(peak, liveThreads());
            }
            // until every exclusive waiter has marked its row (the waits are under way on the server),
            // or a thread per wait shows, or a wait ended: either fails below rather than hanging here
            while (markers(dataSource, now, prefix) < (waiters + 2) / 3 && peak - before < 30
                    && waits.stream().noneMatch(CompletableFuture::isDone)) {
                peak = Math.max(peak, liveThreads());
                Thread.sleep(10);
            }
            peak = Math.max(peak, liveThreads());
            assertThat(waits).as("no wait ends while its key is held").noneMatch(CompletableFuture::isDone);
            assertThat(peak - before).as("threads added by " + waiters + " async waits (" + before + " before)")
                    .isLessThan(30);

            held.forEach(backend::release);
            for (CompletableFuture<Optional<Grant>> wait : waits) {
                backend.release(wait.get().orElseThrow());
            }
            assertThat(residue(dataSource, now, prefix)).as("holds or markers left on the server").isZero();
        }
    }

    /** The JDK's live threads (the tests' module does not read java.management, so no ThreadMXBean). */
    private static int liveThreads() {
        return Thread.getAllStackTraces().size();
    }

    /** Starts what any wait starts once (the shared async threads, the LISTEN connection, the table). */
    private static void warmUp(JdbcLockBackend backend, String prefix) throws Exception {
        Grant grant = backend.acquireAsync(request(prefix + "warm", "warm", 0, false), Duration.ZERO).get().orElseThrow();
        backend.release(grant);
    }

    /** Key {@code i}'s request: exclusive, shared (behind an exclusive holder) or one permit of one, by {@code i % 3}. */
    private static LockRequest request(String key, String owner, int i, boolean waiter) {
        return switch (i % 3) {
            case 0 -> new LockRequest(key, owner, LEASE, false, LockMode.EXCLUSIVE);
            case 1 -> new LockRequest(key, owner, LEASE, false, waiter ? LockMode.SHARED : LockMode.EXCLUSIVE);
            default -> new LockRequest(key, owner, LEASE, false, LockMode.SHARED, new Permits(1, 1));
        };
    }

    private static int markers(DataSource dataSource, String now, String prefix) throws SQLException {
        return count(dataSource, "waiting_writer IS NOT NULL AND writer_waits_until > " + now, prefix);
    }

    private static int residue(DataSource dataSource, String now, String prefix) throws SQLException {
        return count(dataSource, "(lock_owner IS NOT NULL AND expires_at > " + now + ") OR (waiting_writer IS NOT NULL"
                + " AND writer_waits_until > " + now + ")", prefix);
    }

    private static int count(DataSource dataSource, String condition, String prefix) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM mortise_locks WHERE lock_key LIKE ? AND ("
                     + condition + ")")) {
            s.setString(1, prefix + "%");
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }
}
