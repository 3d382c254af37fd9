package dev.mortise.lock.fencing;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fence guard's contract on one real database: a holder paused past its lease is
 * refused and rolled back while the newer holder's commit stands; a paused holder that
 * already checked makes the next holder wait; concurrent read-modify-write with pauses loses
 * no update; an equal token writes again; bad input is refused with a clear message.
 *
 * <p>Locks come from real {@link LockClient}s on the in-process backend (two clients over one
 * {@link LocalLockServer}, like two processes over one server), with short explicit leases,
 * so a sleep is a controllable pause that outlives the lease.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FenceGuardContract {

    private static final AtomicInteger RESOURCES = new AtomicInteger();

    private DataSource dataSource;
    private JdbcFenceGuard guard;
    private LocalLockServer lockServer;
    private LockClient first;
    private LockClient second;

    abstract DataSource dataSource();

    abstract FenceDialect expectedDialect();

    @BeforeAll
    void setUp() throws SQLException {
        dataSource = dataSource();
        guard = JdbcFenceGuard.builder(dataSource).createTableIfMissing(true).build();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS fence_counters (name VARCHAR(100) NOT NULL PRIMARY KEY, "
                    + "counter BIGINT NOT NULL)");
            statement.execute("CREATE TABLE IF NOT EXISTS fence_accounts (id BIGINT NOT NULL PRIMARY KEY, "
                    + "balance BIGINT NOT NULL, fence BIGINT NOT NULL DEFAULT 0)");
        }
        lockServer = new LocalLockServer("fence-test");
        first = LockClient.builder(new LocalLockBackend(lockServer)).build();
        second = LockClient.builder(new LocalLockBackend(lockServer)).build();
    }

    @AfterAll
    void tearDown() {
        first.close();
        second.close();
    }

    @Test
    void readsTheDialectAndCreatesTheTableFromTheShippedDdl() throws SQLException {
        assertThat(guard.dialect()).isEqualTo(expectedDialect());
        assertThat(guard.table()).isEqualTo("mortise_fences");
        // A second build finds the table there and creates nothing.
        JdbcFenceGuard again = JdbcFenceGuard.builder(dataSource).createTableIfMissing(true).build();
        assertThat(again.dialect()).isEqualTo(expectedDialect());
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT resource, token FROM mortise_fences WHERE 1 = 0")) {
            assertThat(rows.getMetaData().getColumnCount()).isEqualTo(2);
        }
    }

    /** (a) A holder paused past its lease writes after a newer holder committed: refused, rolled back. */
    @Test
    void aHolderPausedPastItsLeaseIsRefusedAndItsTransactionRolledBack() throws Exception {
        String key = resource("account");
        insertCounter(key, 0);
        LockLease stale = first.acquire(LockSpec.of(key).lease(Duration.ofMillis(300)).waitFor(Duration.ofSeconds(2)));
        pausePastLease(stale);

        long newer;
        try (LockLease lease = second.acquire(key, Duration.ofSeconds(2))) {
            newer = lease.fencingToken();
            assertThat(newer).isGreaterThan(stale.fencingToken());
            inTransaction(connection -> {
                guard.check(connection, key, lease);
                setCounter(connection, key, 200);
            });
        }

        AtomicInteger rollbacks = new AtomicInteger();
        StaleFencingTokenException refused = null;
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                setCounter(connection, key, 100);          // a write before the check: the rollback must undo it
                guard.check(connection, key, stale);
                connection.commit();
            } catch (StaleFencingTokenException e) {
                refused = e;
                connection.rollback();
                rollbacks.incrementAndGet();
            } finally {
                connection.setAutoCommit(true);
            }
        }
        assertThatThrownBy(stale::close).isInstanceOf(LockLostException.class);

        assertThat(refused).as("the stale holder's check").isNotNull();
        assertThat(rollbacks).hasValue(1);
        assertThat(refused.resource()).isEqualTo(key);
        assertThat(refused.key()).isEqualTo(key);
        assertThat(refused.backend()).isEqualTo("jdbc-fence");
        assertThat(refused.staleToken()).isEqualTo(stale.fencingToken());
        assertThat(refused.newerToken()).isEqualTo(newer);
        assertThat(refused.getMessage()).contains(key, Long.toString(stale.fencingToken()), Long.toString(newer),
                "roll back the transaction", "mortise_fences");
        assertThat(readCounter(key)).as("the newer holder's commit stands").isEqualTo(200);
        assertThat(fence(key)).isEqualTo(newer);
    }

    /**
     * A 2-key lock whose holder pauses past its lease; another client takes one of its keys and
     * commits. The stale holder's checkAll passes the untouched key's fence, is refused on the
     * taken one (named in the exception) and its whole transaction rolls back.
     */
    @Test
    void aStaleHolderOfATwoKeyLockIsRefusedOnThePartTakenOverAndRolledBack() throws Exception {
        String base = resource("multi");
        String keyA = base + ":a";
        String keyB = base + ":b";
        insertCounter("balance:" + keyA, 0);
        insertCounter("balance:" + keyB, 0);
        MultiLease stale = first.acquireAll(MultiLockSpec.of(List.of(keyB, keyA)).lease(Duration.ofMillis(300))
                .waitFor(Duration.ofSeconds(2)));
        assertThat(stale.keys()).containsExactly(keyA, keyB);
        pausePastLease(stale.part(keyB));

        long newer;
        try (LockLease lease = second.acquire(keyB, Duration.ofSeconds(2))) {
            newer = lease.fencingToken();
            inTransaction(connection -> {
                guard.check(connection, "balance:" + keyB, lease);
                setCounter(connection, "balance:" + keyB, 200);
            });
        }

        StaleFencingTokenException refused = null;
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                setCounter(connection, "balance:" + keyA, 100);  // writes before the check: the rollback undoes them
                setCounter(connection, "balance:" + keyB, 100);
                guard.checkAll(connection, stale, key -> "balance:" + key);
                connection.commit();
            } catch (StaleFencingTokenException e) {
                refused = e;
                connection.rollback();
            } finally {
                connection.setAutoCommit(true);
            }
        }
        assertThatThrownBy(stale::close).isInstanceOf(LockLostException.class);

        assertThat(refused).as("the stale holder's checkAll").isNotNull();
        assertThat(refused.resource()).isEqualTo("balance:" + keyB);
        assertThat(refused.staleToken()).isEqualTo(stale.fencingToken(keyB));
        assertThat(refused.newerToken()).isEqualTo(newer);
        assertThat(refused.getMessage()).contains("balance:" + keyB, "roll back the transaction");
        assertThat(readCounter("balance:" + keyB)).as("the newer holder's commit stands").isEqualTo(200);
        assertThat(readCounter("balance:" + keyA)).as("the stale write to the other key rolled back").isZero();
        assertThat(fence("balance:" + keyA)).as("the fence raised before the refusal rolled back").isEqualTo(-1);
        assertThat(fence("balance:" + keyB)).isEqualTo(newer);
    }

    /** A fresh 2-key lock fences both resources, each with its own part's token; bad mappings are refused. */
    @Test
    void aFreshTwoKeyLockFencesOneResourcePerKeyWithThatPartsToken() throws Exception {
        String base = resource("multi-fresh");
        List<String> keys = List.of(base + ":x", base + ":y");
        try (MultiLease lease = first.acquireAll(keys, Duration.ofSeconds(2))) {
            inTransaction(connection -> guard.checkAll(connection, lease, key -> "balance:" + key));
            for (String key : keys) {
                assertThat(fence("balance:" + key)).as(key).isEqualTo(lease.fencingToken(key));
            }
            inTransaction(connection -> guard.checkAll(connection, lease));     // each key its own resource
            for (String key : keys) {
                assertThat(fence(key)).as(key).isEqualTo(lease.fencingToken(key));
            }
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                assertThatThrownBy(() -> guard.checkAll(connection, lease, key -> "balance:" + base))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("both map to fenced resource 'balance:" + base + "'")
                        .hasMessageContaining(keys.get(0)).hasMessageContaining(keys.get(1));
                assertThatThrownBy(() -> guard.checkAll(connection, lease, key -> null))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be null");
                assertThatThrownBy(() -> guard.checkAll(connection, null, key -> key))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MultiLease");
                connection.rollback();
                connection.setAutoCommit(true);
            }
            assertThat(fence("balance:" + base)).as("nothing was written for a refused mapping").isEqualTo(-1);
        }
    }

    /** The same pause without the guard: the stale write wins, which is what the guard is for. */
    @Test
    void withoutTheGuardTheStaleHoldersWriteOverwritesTheNewerOne() throws Exception {
        String key = resource("unguarded");
        insertCounter(key, 0);
        LockLease stale = first.acquire(LockSpec.of(key).lease(Duration.ofMillis(300)).waitFor(Duration.ofSeconds(2)));
        pausePastLease(stale);
        try (LockLease lease = second.acquire(key, Duration.ofSeconds(2))) {
            assertThat(lease.fencingToken()).isGreaterThan(stale.fencingToken());
            inTransaction(connection -> setCounter(connection, key, 200));
        }
        inTransaction(connection -> setCounter(connection, key, 100));
        assertThatThrownBy(stale::close).isInstanceOf(LockLostException.class);
        assertThat(readCounter(key)).as("unguarded, the newer holder's write is lost").isEqualTo(100);
    }

    /**
     * A holder that checked and then pauses past its lease keeps the fence row locked: the next
     * holder's check waits for its commit and then reads its write. Both increments count.
     */
    @Test
    void aHolderPausedInsideItsGuardedTransactionMakesTheNextHolderWaitForItsCommit() throws Exception {
        String key = resource("queued");
        insertCounter(key, 0);
        AtomicLong committedAt = new AtomicLong();
        AtomicLong secondCheckedAt = new AtomicLong();
        LockLease stale = first.acquire(LockSpec.of(key).lease(Duration.ofMillis(300)).waitFor(Duration.ofSeconds(2)));
        CompletableFuture<Void> later = new CompletableFuture<>();
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            guard.check(connection, key, stale);
            long read = readCounter(connection, key);
            later = CompletableFuture.runAsync(() -> {
                try (LockLease lease = second.acquire(key, Duration.ofSeconds(5))) {
                    inTransaction(other -> {
                        guard.check(other, key, lease);
                        secondCheckedAt.set(System.nanoTime());
                        setCounter(other, key, readCounter(other, key) + 1);
                    });
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            pausePastLease(stale);
            Thread.sleep(300);                             // the second holder has the lock and waits on the fence row
            setCounter(connection, key, read + 1);
            committedAt.set(System.nanoTime());
            connection.commit();
            connection.setAutoCommit(true);
        }
        later.get(10, TimeUnit.SECONDS);
        assertThatThrownBy(stale::close).isInstanceOf(LockLostException.class);
        assertThat(secondCheckedAt.get()).as("the second check returned after the first commit")
                .isGreaterThan(committedAt.get());
        assertThat(readCounter(key)).as("no update lost").isEqualTo(2);
    }

    /** (c) An equal token is the same holder writing again: allowed, in one transaction or several. */
    @Test
    void anEqualTokenWritesAgainAndOnlyALowerOneIsRefused() throws Exception {
        String key = resource("equal");
        inTransaction(connection -> guard.check(connection, key, 5));
        inTransaction(connection -> {
            guard.check(connection, key, 5);
            guard.check(connection, key, 5);
        });
        assertThat(fence(key)).isEqualTo(5);
        inTransaction(connection -> assertThatThrownBy(() -> guard.check(connection, key, 4))
                .isInstanceOfSatisfying(StaleFencingTokenException.class, e -> {
                    assertThat(e.staleToken()).isEqualTo(4);
                    assertThat(e.newerToken()).isEqualTo(5);
                }));
        inTransaction(connection -> guard.check(connection, key, 9));
        assertThat(fence(key)).isEqualTo(9);
        inTransaction(connection -> guard.check(connection, key, 0L + Long.MAX_VALUE));
        assertThat(fence(key)).isEqualTo(Long.MAX_VALUE);
        // With the lease overload and the lease's key as resource.
        try (LockLease lease = first.acquire(resource("by-key"), Duration.ofSeconds(2))) {
            inTransaction(connection -> {
                guard.check(connection, lease);
                guard.check(connection, lease.key(), lease);
            });
            assertThat(fence(lease.key())).isEqualTo(lease.fencingToken());
        }
    }

    /** A rolled-back check leaves no trace: the fence is what the last committed check raised it to. */
    @Test
    void aRolledBackCheckDoesNotRaiseTheFence() throws Exception {
        String key = resource("rolled-back");
        inTransaction(connection -> guard.check(connection, key, 3));
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            guard.check(connection, key, 8);
            connection.rollback();
            connection.setAutoCommit(true);
        }
        assertThat(fence(key)).isEqualTo(3);
        inTransaction(connection -> guard.check(connection, key, 4));
    }

    /** (d) Bad input: a clear IllegalArgumentException naming the resource and the fix; nothing is written. */
    @Test
    void badInputIsRefusedWithAMessageNamingResourceAndFix() throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> guard.check(connection, null, 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be null")
                    .hasMessageContaining("lease.key()");
            assertThatThrownBy(() -> guard.check(connection, "  ", 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'  ' is blank");
            String tooLong = "é".repeat(128);                          // 256 UTF-8 bytes
            assertThatThrownBy(() -> guard.check(connection, tooLong, 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("256 UTF-8 bytes")
                    .hasMessageContaining("over the 255").hasMessageContaining("shorter name");
            guard.check(connection, "é".repeat(127) + "x", 1);          // 255 bytes fit
            assertThatThrownBy(() -> guard.check(connection, "account:7", (LockLease) null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'account:7'")
                    .hasMessageContaining("pass the LockLease");
            assertThatThrownBy(() -> guard.check(connection, "account:7", -3))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'account:7'")
                    .hasMessageContaining("negative").hasMessageContaining("lease.fencingToken()");
            connection.rollback();
            connection.setAutoCommit(true);
            assertThatThrownBy(() -> guard.check(connection, "account:7", 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'account:7'")
                    .hasMessageContaining("auto-commit").hasMessageContaining("setAutoCommit(false)");
        }
        assertThatThrownBy(() -> guard.check(null, "account:7", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'account:7'")
                .hasMessageContaining("connection for fenced resource").hasMessageContaining("is null");
        assertThatThrownBy(() -> JdbcFenceGuard.builder(dataSource).tableName("fences; DROP TABLE x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a plain SQL identifier");
        assertThat(fence("account:7")).as("nothing was written").isEqualTo(-1);
    }

    /** A missing fence table is a FenceCheckException that says how to create it. */
    @Test
    void aMissingTableNamesTheDdl() throws Exception {
        JdbcFenceGuard missing = JdbcFenceGuard.builder(dataSource).tableName("no_such_fences").build();
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> missing.check(connection, "account:1", 1))
                    .isInstanceOf(FenceCheckException.class).hasMessageContaining("no_such_fences")
                    .hasMessageContaining("createTableIfMissing(true)").hasMessageContaining("'account:1'");
            connection.rollback();
            connection.setAutoCommit(true);
        }
    }

    /** The fence column style: stale refused, equal allowed, missing row is 0, claim takes the row first. */
    @Test
    void fencedUpdateOnTheUsersOwnRow() throws Exception {
        long id = 1000 + RESOURCES.incrementAndGet();
        inTransaction(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO fence_accounts (id, balance) VALUES (?, 100)")) {
                insert.setLong(1, id);
                insert.executeUpdate();
            }
        });
        FencedUpdate accounts = FencedUpdate.of("fence_accounts", "id", "fence");
        inTransaction(connection -> assertThat(accounts.update(connection, id, 7, "balance = balance - ?", 10)).isEqualTo(1));
        inTransaction(connection -> assertThat(accounts.update(connection, id, 7, "balance = balance - ?", 10)).isEqualTo(1));
        inTransaction(connection -> assertThatThrownBy(() -> accounts.update(connection, id, 6, "balance = ?", 0))
                .isInstanceOfSatisfying(StaleFencingTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo("fence_accounts:" + id);
                    assertThat(e.newerToken()).isEqualTo(7);
                    assertThat(e.getMessage()).contains("fence_accounts.fence", "roll back");
                }));
        inTransaction(connection -> assertThat(accounts.update(connection, -1L, 9, "balance = ?", 0)).isZero());
        inTransaction(connection -> {
            assertThat(accounts.claim(connection, id, 8)).isEqualTo(1);
            try (PreparedStatement read = connection.prepareStatement("SELECT balance FROM fence_accounts WHERE id = ?")) {
                read.setLong(1, id);
                try (ResultSet row = read.executeQuery()) {
                    row.next();
                    assertThat(accounts.update(connection, id, 8, "balance = ?", row.getLong(1) * 2)).isEqualTo(1);
                }
            }
        });
        try (Connection connection = dataSource.getConnection();
             PreparedStatement read = connection.prepareStatement("SELECT balance, fence FROM fence_accounts WHERE id = ?")) {
            read.setLong(1, id);
            try (ResultSet row = read.executeQuery()) {
                row.next();
                assertThat(row.getLong(1)).isEqualTo(160);
                assertThat(row.getLong(2)).isEqualTo(8);
            }
            assertThatThrownBy(() -> accounts.claim(connection, id, 9))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("auto-commit");
        }
    }

    /**
     * (b) Two clients, three threads each, random pauses (some past the 150 ms lease, before the
     * check and inside the transaction), read-modify-write of one counter guarded by the check:
     * the counter equals the committed increments, and every refusal is a stale-token refusal.
     */
    @Test
    void concurrentReadModifyWriteWithPausesLosesNoUpdate() throws Exception {
        String key = resource("fuzz");
        insertCounter(key, 0);
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger expiredButCommitted = new AtomicInteger();
        AtomicInteger lockTimeouts = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        List<Thread> threads = new ArrayList<>();
        for (LockClient client : List.of(first, second)) {
            for (int t = 0; t < 3; t++) {
                threads.add(new Thread(() -> {
                    while (System.nanoTime() < end && unexpected.isEmpty()) {
                        try {
                            increment(client, key, committed, refused, expiredButCommitted);
                        } catch (dev.mortise.lock.LockTimeoutException e) {
                            lockTimeouts.incrementAndGet();
                        } catch (Throwable e) {
                            unexpected.add(e);
                        }
                    }
                }, "fuzz-" + threads.size()));
            }
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(30_000);
        }
        System.out.printf("%s fuzz: committed=%d refused=%d expiredButCommitted=%d lockTimeouts=%d%n",
                expectedDialect(), committed.get(), refused.get(), expiredButCommitted.get(), lockTimeouts.get());
        assertThat(unexpected).as("every refusal is a StaleFencingTokenException").isEmpty();
        assertThat(readCounter(key)).as("counter = committed increments (0 lost updates)").isEqualTo(committed.get());
        assertThat(committed.get()).isPositive();
        assertThat(refused.get()).as("holders paused past their lease were refused").isPositive();
    }

    private void increment(LockClient client, String key, AtomicInteger committed, AtomicInteger refused,
                           AtomicInteger expiredButCommitted) throws Exception {
        LockLease lease = client.acquire(LockSpec.of(key).lease(Duration.ofMillis(150)).waitFor(Duration.ofSeconds(5)));
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                pause();                                  // e.g. a GC pause between acquire and the transaction
                guard.check(connection, key, lease);
                long value = readCounter(connection, key);
                pause();                                  // a pause inside the transaction, fence row held
                setCounter(connection, key, value + 1);
                boolean valid = lease.isValid();
                connection.commit();
                committed.incrementAndGet();
                if (!valid) {
                    expiredButCommitted.incrementAndGet();
                }
            } catch (StaleFencingTokenException e) {
                connection.rollback();
                refused.incrementAndGet();
            } catch (Throwable e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } finally {
            try {
                lease.close();
            } catch (LockLostException expected) {
                // the lease ran out during a pause: that is the point of the test
            }
        }
    }

    private static void pause() throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int roll = random.nextInt(100);
        if (roll < 12) {
            Thread.sleep(180 + random.nextInt(150));      // past the 150 ms lease
        } else if (roll < 40) {
            Thread.sleep(random.nextInt(20));
        }
    }

    private static void pausePastLease(LockLease lease) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (lease.isValid() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(lease.isValid()).as("the lease ran out during the pause").isFalse();
        Thread.sleep(100);                                 // and the server has let it go too
    }

    // --- plumbing --------------------------------------------------------------------------

    interface Work {
        void run(Connection connection) throws Exception;
    }

    private void inTransaction(Work work) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                work.run(connection);
                connection.commit();
            } catch (Throwable e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }

    private static String resource(String prefix) {
        return prefix + ":" + RESOURCES.incrementAndGet() + ":" + Long.toHexString(System.nanoTime());
    }

    private void insertCounter(String key, long value) throws Exception {
        inTransaction(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO fence_counters (name, counter) VALUES (?, ?)")) {
                insert.setString(1, key);
                insert.setLong(2, value);
                insert.executeUpdate();
            }
        });
    }

    private static void setCounter(Connection connection, String key, long value) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE fence_counters SET counter = ? WHERE name = ?")) {
            update.setLong(1, value);
            update.setString(2, key);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
    }

    private static long readCounter(Connection connection, String key) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement("SELECT counter FROM fence_counters WHERE name = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                assertThat(row.next()).isTrue();
                return row.getLong(1);
            }
        }
    }

    private long readCounter(String key) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return readCounter(connection, key);
        }
    }

    /** The committed fence of {@code resource}, or -1 if it has none (read as the dialect stores it). */
    private long fence(String resource) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement read = connection.prepareStatement("SELECT token FROM mortise_fences WHERE resource = ?")) {
            if (guard.dialect() == FenceDialect.MYSQL) {
                read.setBytes(1, resource.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            } else {
                read.setString(1, resource);
            }
            try (ResultSet row = read.executeQuery()) {
                return row.next() ? row.getLong(1) : -1;
            }
        }
    }

}
