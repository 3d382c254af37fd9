package dev.mortise.lock.jdbc;

import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What each dialect's statements do to the row, seen through the SPI and the table itself:
 * busy answers carry the holder's remaining lease (judged by the database), release keeps
 * the row and its token, renewAll tells the gone holds apart, a row written with an
 * expiry in the database's future is not taken, hashed keys keep their original.
 */
abstract class JdbcBehaviourTest {

    protected JdbcLockBackend backend;

    protected abstract DataSource dataSource();

    /** SQL for the database's time plus {@code seconds}, for rows written by hand. */
    protected abstract String nowPlusSeconds(int seconds);

    @BeforeEach
    void createBackend() {
        backend = JdbcLockBackend.builder(dataSource()).createTableIfMissing(true).build();
    }

    @AfterEach
    void closeBackend() {
        backend.close();
    }

    static String key(String name) {
        return "behaviour:" + name + ":" + UUID.randomUUID();
    }

    static LockRequest request(String key, String owner, Duration lease) {
        return new LockRequest(key, owner, lease, false);
    }

    /**
     * A database that is not durable (PostgreSQL with fsync off, killed) can come back without
     * the lock table itself; a backend that creates its table creates it again instead of failing
     * every call from then on, and tokens keep growing (server-clock tokens).
     */
    @Test
    void aLockTableLostWithItsDatabaseIsCreatedAgainByABackendThatCreatesIt() throws SQLException {
        String table = "mortise_lost_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (JdbcLockBackend own = JdbcLockBackend.builder(dataSource()).tableName(table).createTableIfMissing(true)
                .build()) {
            String key = key("lost-table");
            Grant first = own.tryAcquire(request(key, "one", Duration.ofSeconds(30))).grant().orElseThrow();
            dropTable(table);
            assertThat(own.release(first)).as("the hold went with the table").isFalse();
            Grant second = own.tryAcquire(request(key, "two", Duration.ofSeconds(30))).grant().orElseThrow();
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            dropTable(table);
            Grant third = own.tryAcquire(request(key, "three", Duration.ofSeconds(30))).grant().orElseThrow();
            assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
            assertThat(own.release(third)).isTrue();
        } finally {
            dropTable(table);
        }
    }

    /** Without createTableIfMissing the lost table is named with the fix, and nothing is created. */
    @Test
    void aLockTableLostIsNamedWithTheFixByABackendThatDoesNotCreateIt() throws SQLException {
        String table = "mortise_lost_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        JdbcLockBackend.builder(dataSource()).tableName(table).createTableIfMissing(true).build().close();
        try (JdbcLockBackend own = JdbcLockBackend.builder(dataSource()).tableName(table).build()) {
            dropTable(table);
            String key = key("lost-table-kept");
            assertThatThrownBy(() -> own.tryAcquire(request(key, "one", Duration.ofSeconds(30))))
                    .isInstanceOf(dev.mortise.lock.LockBackendException.class)
                    .hasMessageContaining(table).hasMessageContaining("createTableIfMissing");
            assertThatThrownBy(() -> own.tryAcquire(request(key, "one", Duration.ofSeconds(30))))
                    .as("still not created behind the user's back")
                    .isInstanceOf(dev.mortise.lock.LockBackendException.class);
        } finally {
            dropTable(table);
        }
    }

    private void dropTable(String table) throws SQLException {
        try (java.sql.Connection c = dataSource().getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    @Test
    void busyAnswerCarriesTheHoldersRemainingLease() {
        String key = key("busy");
        assertThat(backend.tryAcquire(request(key, "holder", Duration.ofSeconds(60))).isGranted()).isTrue();
        Attempt busy = backend.tryAcquire(request(key, "other", Duration.ofSeconds(5)));
        assertThat(busy.isGranted()).isFalse();
        assertThat(busy.holderRemaining()).hasValueSatisfying(remaining ->
                assertThat(remaining).isGreaterThan(Duration.ofSeconds(50)).isLessThanOrEqualTo(Duration.ofSeconds(60)));
    }

    @Test
    void releaseKeepsTheRowAndTheTokenOnlyGrows() throws SQLException {
        String key = key("token");
        Grant first = backend.tryAcquire(request(key, "one", Duration.ofSeconds(30))).grant().orElseThrow();
        assertThat(backend.release(first)).isTrue();
        assertThat(backend.release(first)).as("second release: no longer ours").isFalse();
        assertThat(rows(key)).isEqualTo(1);
        Grant second = backend.tryAcquire(request(key, "two", Duration.ofSeconds(30))).grant().orElseThrow();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(backend.release(first)).as("a stale owner cannot release").isFalse();
        assertThat(backend.tryAcquire(request(key, "three", Duration.ofSeconds(30))).isGranted()).isFalse();
        backend.release(second);
    }

    @Test
    void reacquireBySameOwnerKeepsTheToken() {
        String key = key("same-owner");
        Grant first = backend.tryAcquire(request(key, "one", Duration.ofSeconds(30))).grant().orElseThrow();
        Grant again = backend.tryAcquire(request(key, "one", Duration.ofSeconds(30))).grant().orElseThrow();
        assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
        backend.release(again);
    }

    @Test
    void renewAllRenewsOursAndReportsTheGoneOnes() throws Exception {
        String live = key("live");
        String expired = key("expired");
        String stolen = key("stolen");
        Grant liveGrant = backend.tryAcquire(request(live, "a1", Duration.ofSeconds(2))).grant().orElseThrow();
        Grant expiredGrant = backend.tryAcquire(request(expired, "a2", Duration.ofMillis(200))).grant().orElseThrow();
        Grant stolenGrant = backend.tryAcquire(request(stolen, "a3", Duration.ofMillis(200))).grant().orElseThrow();
        Thread.sleep(400);
        assertThat(backend.tryAcquire(request(stolen, "thief", Duration.ofSeconds(30))).isGranted()).isTrue();
        Set<Grant> gone = backend.renewAll(List.of(liveGrant, expiredGrant, stolenGrant), Duration.ofSeconds(60)).gone();
        assertThat(gone).containsExactlyInAnyOrder(expiredGrant, stolenGrant);
        Attempt busy = backend.tryAcquire(request(live, "b", Duration.ofSeconds(1)));
        assertThat(busy.holderRemaining()).hasValueSatisfying(r -> assertThat(r).isGreaterThan(Duration.ofSeconds(30)));
        assertThat(backend.renew(expiredGrant, Duration.ofSeconds(5))).isEmpty();
        assertThat(backend.renew(liveGrant, Duration.ofSeconds(5))).isPresent();
    }

    /**
     * More holds than any batch of the old code (500), with one of each way to be gone
     * spread among them and a key listed twice (an expired hold and our new hold of it):
     * renewAll sends one statement when every hold is live, reports exactly the gone ones
     * (a second statement only on MySQL, which has no RETURNING), renews the new hold, and
     * leaves the row another owner took over alone.
     */
    @Test
    void renewAllOfManyHoldsIsOneStatementAndReportsExactlyTheGoneOnes() throws Exception {
        RecordingDataSource recording = new RecordingDataSource(dataSource());
        JdbcLockBackend recorded = JdbcLockBackend.builder(recording).dialect(backend.dialect()).build();
        try {
            int n = 1_200;
            List<Grant> grants = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                grants.add(recorded.tryAcquire(request(key("many-" + i) + "é", "owner-" + i + "-ü",
                        Duration.ofSeconds(30))).grant().orElseThrow());
            }
            recording.statements.clear();
            assertThat(recorded.renewAll(grants, Duration.ofSeconds(60)).gone()).isEmpty();
            assertThat(recording.statements).as("statements for %d live holds", n).hasSize(1);

            Grant expired = grants.get(300);
            Grant stolen = grants.get(700);
            Grant deleted = grants.get(1_100);
            execute("UPDATE mortise_locks SET expires_at = " + nowPlusSeconds(-1) + " WHERE lock_key = ?", expired.state());
            execute("UPDATE mortise_locks SET expires_at = " + nowPlusSeconds(-1) + " WHERE lock_key = ?", stolen.state());
            assertThat(backend.tryAcquire(request(stolen.key(), "thief", Duration.ofSeconds(30))).isGranted()).isTrue();
            execute("DELETE FROM mortise_locks WHERE lock_key = ?", deleted.state());
            // The same key held again by a new hold of ours while the expired one is still listed.
            Grant retaken = recorded.tryAcquire(request(expired.key(), "owner-again", Duration.ofSeconds(30)))
                    .grant().orElseThrow();
            grants.add(retaken);
            String thiefExpiry = expiresAt(stolen.state());

            recording.statements.clear();
            Set<Grant> gone = recorded.renewAll(grants, Duration.ofSeconds(90)).gone();
            assertThat(gone).containsExactlyInAnyOrder(expired, stolen, deleted);
            assertThat(recording.statements).as("statements with gone holds")
                    .hasSize(backend.dialect() == JdbcDialect.MYSQL ? 2 : 1);
            assertThat(expiresAt(stolen.state())).as("the thief's row is not extended").isEqualTo(thiefExpiry);
            assertThat(backend.tryAcquire(request(retaken.key(), "other", Duration.ofSeconds(1))).holderRemaining())
                    .as("the new hold of a key listed twice is renewed to 90 s")
                    .hasValueSatisfying(r -> assertThat(r).isGreaterThan(Duration.ofSeconds(60)));
            assertThat(backend.renew(grants.get(0), Duration.ofSeconds(5))).isPresent();
            assertThat(backend.renew(deleted, Duration.ofSeconds(5))).isEmpty();
            for (Grant grant : grants) {
                recorded.release(grant);
            }
        } finally {
            recorded.close();
        }
    }

    @Test
    void releaseOfAnExpiredHoldReportsItGone() throws Exception {
        String key = key("expired-release");
        Grant grant = backend.tryAcquire(request(key, "one", Duration.ofMillis(100))).grant().orElseThrow();
        Thread.sleep(300);
        assertThat(backend.release(grant)).isFalse();
        assertThat(backend.tryAcquire(request(key, "two", Duration.ofSeconds(5))).grant())
                .hasValueSatisfying(g -> assertThat(g.fencingToken()).isGreaterThan(grant.fencingToken()));
    }

    /**
     * The database's clock alone decides: a row whose expiry is an hour ahead of the
     * database's time is held, one a second behind it is free, whatever this JVM's clock
     * says — the statements carry no time of ours (see {@link NoApplicationTimeTest}).
     */
    @Test
    void expiryIsJudgedByTheDatabaseClock() throws SQLException {
        String held = key("db-future");
        String lapsed = key("db-past");
        insertRow(held, "someone", 41, nowPlusSeconds(3600));
        insertRow(lapsed, "someone", 41, nowPlusSeconds(-1));
        Attempt busy = backend.tryAcquire(request(held, "me", Duration.ofSeconds(5)));
        assertThat(busy.isGranted()).isFalse();
        assertThat(busy.holderRemaining()).hasValueSatisfying(r -> assertThat(r).isGreaterThan(Duration.ofMinutes(59)));
        assertThat(backend.tryAcquire(request(lapsed, "me", Duration.ofSeconds(5))).grant())
                .hasValueSatisfying(g -> assertThat(g.fencingToken()).isGreaterThan(41));
    }

    @Test
    void longKeysAreStoredHashedWithTheOriginalKept() throws SQLException {
        String key = key("long") + "é".repeat(200);
        String similar = key.substring(0, key.length() - 1) + "è";
        Grant grant = backend.tryAcquire(request(key, "one", Duration.ofSeconds(30))).grant().orElseThrow();
        assertThat(backend.tryAcquire(request(similar, "two", Duration.ofSeconds(30))).isGranted()).isTrue();
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT original_key FROM mortise_locks WHERE lock_key = ?")) {
            s.setString(1, JdbcContractTest.stored(key));
            try (ResultSet rows = s.executeQuery()) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(1)).isEqualTo(key);
            }
        }
        assertThat(JdbcContractTest.stored(key)).contains("#").isNotEqualTo(JdbcContractTest.stored(similar));
        backend.release(grant);
    }

    /** Takes and releases {@code key} with a new owner each time; returns the tokens in grant order. */
    private static List<Long> cycle(JdbcLockBackend on, String key, int times) {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            Grant grant = on.tryAcquire(request(key, "cycle-" + UUID.randomUUID(), Duration.ofSeconds(30))).grant()
                    .orElseThrow();
            tokens.add(grant.fencingToken());
            assertThat(on.release(grant)).isTrue();
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("tokens %s strictly increase", tokens).isGreaterThan(tokens.get(i - 1));
        }
        return tokens;
    }

    /**
     * A database that loses the lock row — a crash with fsync or synchronous commit off, a
     * failover to a lagging replica, a restore: what it loses looks like this DELETE — must
     * still hand out a token above every one it issued (default server-clock tokens).
     */
    @Test
    void tokensKeepIncreasingWhenTheDatabaseLosesTheRow() throws SQLException {
        String key = key("lost-row");
        List<Long> before = cycle(backend, key, 5);
        execute("DELETE FROM mortise_locks WHERE lock_key = ?", JdbcContractTest.stored(key));
        assertThat(rows(key)).isZero();
        long after = cycle(backend, key, 1).get(0);
        assertThat(after).as("first token after the row was lost, tokens before: %s", before)
                .isGreaterThan(before.get(before.size() - 1));
    }

    /** The same for a lost increment: the row is back at an older token (the write before the last). */
    @Test
    void tokensKeepIncreasingWhenTheDatabaseLosesTheLastIncrement() throws SQLException {
        String key = key("lost-increment");
        List<Long> before = cycle(backend, key, 3);
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("UPDATE mortise_locks SET fencing_token = ? WHERE lock_key = ?")) {
            c.setAutoCommit(true);
            s.setLong(1, before.get(1));
            s.setString(2, JdbcContractTest.stored(key));
            assertThat(s.executeUpdate()).isEqualTo(1);
        }
        long after = cycle(backend, key, 1).get(0);
        assertThat(after).as("token after the last increment was lost, tokens before: %s", before)
                .isGreaterThan(before.get(before.size() - 1));
    }

    @Test
    void counterOptionKeepsSmallNumbersAndStartsAgainWhenTheRowIsLost() throws SQLException {
        String key = key("counter");
        try (JdbcLockBackend counter = JdbcLockBackend.builder(dataSource()).fencingTokens(FencingTokens.COUNTER)
                .build()) {
            assertThat(cycle(counter, key, 3)).containsExactly(1L, 2L, 3L);
            execute("DELETE FROM mortise_locks WHERE lock_key = ?", JdbcContractTest.stored(key));
            assertThat(cycle(counter, key, 2)).as("the plain counter starts again on a lost row").containsExactly(1L, 2L);
        }
    }

    @Test
    void serverClockTokensAreMicrosecondsOfTheDatabaseClock() {
        long floor = (System.currentTimeMillis() - Duration.ofMinutes(10).toMillis()) * 1000;
        long ceiling = (System.currentTimeMillis() + Duration.ofMinutes(10).toMillis()) * 1000;
        assertThat(cycle(backend, key("clock"), 1).get(0)).isBetween(floor, ceiling);
    }

    @Test
    void pingAnswers() {
        backend.ping();
    }

    private void execute(String sql, String storedKey) throws SQLException {
        try (Connection c = dataSource().getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            c.setAutoCommit(true);
            s.setString(1, storedKey);
            s.executeUpdate();
        }
    }

    private String expiresAt(String storedKey) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT expires_at FROM mortise_locks WHERE lock_key = ?")) {
            s.setString(1, storedKey);
            try (ResultSet rows = s.executeQuery()) {
                assertThat(rows.next()).isTrue();
                return rows.getString(1);
            }
        }
    }

    private int rows(String key) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM mortise_locks WHERE lock_key = ?")) {
            s.setString(1, JdbcContractTest.stored(key));
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    private void insertRow(String key, String owner, long token, String expiresAt) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("INSERT INTO mortise_locks (lock_key, lock_owner, fencing_token,"
                     + " acquired_at, expires_at) VALUES (?, ?, ?, " + nowPlusSeconds(0) + ", " + expiresAt + ")")) {
            c.setAutoCommit(true);
            s.setString(1, JdbcContractTest.stored(key));
            s.setString(2, owner);
            s.setLong(3, token);
            s.executeUpdate();
        }
    }
}
