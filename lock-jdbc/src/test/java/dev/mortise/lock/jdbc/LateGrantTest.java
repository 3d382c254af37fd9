package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Contract 7 when an acquire's grant commits after the caller gave up (issue 14, finding 8):
 * a second connection holds the lock row with {@code SELECT … FOR UPDATE}, so the acquire
 * statement waits on the server past the operation timeout; the client's network timeout
 * ends the call with a {@link LockBackendException}, and the clean-up runs while the acquire
 * is still waiting. Then the blocker commits, the acquire goes through on the server and
 * commits a grant for an owner nobody will renew. With a 20 s lease the row would stay owned
 * for 20 s; the clean-up must keep trying until it has released it (or the lease has run out).
 * Real databases, no mocks; each dialect in its own subclass and table.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class LateGrantTest {

    private static final Duration LEASE = Duration.ofSeconds(20);
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private JdbcLockBackend backend;
    private final String table = "late_" + UUID.randomUUID().toString().substring(0, 8);

    protected abstract DataSource dataSource();

    @BeforeEach
    void createBackend() {
        backend = JdbcLockBackend.builder(dataSource()).tableName(table).createTableIfMissing(true)
                .operationTimeout(TIMEOUT).listenForReleases(false).build();
    }

    @AfterEach
    void dropTable() throws SQLException {
        backend.close();
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE " + backend.tableName());
        }
    }

    private int ownedBy(String owner) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM " + backend.tableName()
                     + " WHERE lock_owner = ?")) {
            s.setString(1, owner);
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    @Test
    void grantThatCommitsAfterTheCleanUpIsReleasedAllTheSame() throws Exception {
        String key = "late:" + UUID.randomUUID();
        Attempt first = backend.tryAcquire(new LockRequest(key, "first", LEASE, false));
        assertThat(backend.release(first.grant().orElseThrow())).isTrue(); // the row exists and is free

        String owner = "late-" + UUID.randomUUID();
        try (Connection blocker = dataSource().getConnection()) {
            blocker.setAutoCommit(false);
            try (Statement s = blocker.createStatement()) {
                s.executeQuery("SELECT lock_key FROM " + backend.tableName() + " FOR UPDATE").close();
            }
            long sent = System.nanoTime();
            assertThatThrownBy(() -> backend.tryAcquire(new LockRequest(key, owner, LEASE, false)))
                    .isInstanceOf(LockBackendException.class);
            // Let the clean-up run (and find nothing to release) while the acquire still waits.
            Thread.sleep(1500);
            assertThat(ownedBy(owner)).as("nothing granted while the row is locked").isZero();
            blocker.commit(); // the acquire goes through now, on the server
            assertThat(System.nanoTime() - sent).as("the lease is far from over")
                    .isLessThan(LEASE.toNanos() / 2);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        int owned = ownedBy(owner);
        while (owned != 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(100);
            owned = ownedBy(owner);
        }
        assertThat(owned).as("rows still owned by the acquire that timed out, 8 s after its grant committed "
                + "(lease " + LEASE.toSeconds() + " s)").isZero();
        // Polled: right after the commit the late statement may not have landed yet, so "owned" can read 0
        // before the late grant exists and the first try find it held (seen once on a loaded machine).
        boolean free = backend.tryAcquire(new LockRequest(key, "next", LEASE, false)).isGranted();
        while (!free && System.nanoTime() - deadline < 0) {
            Thread.sleep(100);
            free = backend.tryAcquire(new LockRequest(key, "next", LEASE, false)).isGranted();
        }
        assertThat(free).as("the key is free for others before the lease of the late grant ran out").isTrue();
    }
}
