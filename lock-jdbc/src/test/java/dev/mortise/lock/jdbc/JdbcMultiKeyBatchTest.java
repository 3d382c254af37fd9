package dev.mortise.lock.jdbc;

import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockClient#acquireAll} on each dialect: the statements it sends, counted as they are prepared
 * ({@link RecordingDataSource}), and all-or-nothing when a part is busy, checked on the table through a
 * second backend's {@code inspect}. Counts are exact, not timed; every lease is explicit, so no renewal
 * runs while a count is taken.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class JdbcMultiKeyBatchTest {

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String prefix = "batch:" + UUID.randomUUID() + ":";
    private RecordingDataSource recording;
    /** Reads the table for the assertions, through connections the count does not see. */
    private JdbcLockBackend probe;

    protected abstract DataSource dataSource();

    /** Statements the batch itself sends when every key is free (PostgreSQL, H2: 1; MySQL: the write and a read). */
    protected abstract int uncontendedBatchStatements();

    /** Statements a batch refused for a busy key sends (H2 follows it with an owner-checked release). */
    protected int refusedBatchStatements() {
        return 1;
    }

    /** Statements a single exclusive attempt that finds its key busy sends (H2 reads the holder's lease apart). */
    protected int busyAttemptStatements() {
        return 1;
    }

    /** SQL for the database's time plus {@code seconds}, for rows written by hand. */
    protected abstract String nowPlusSeconds(int seconds);

    /** SQL counting the sessions that wait for a row lock. */
    protected abstract String lockWaits();

    /**
     * Statements the batch sends when another session's uncommitted insert of one of its keys commits
     * while the batch waits for it: PostgreSQL's check did not see that row, takes the other keys and
     * gives them back (2); the others refuse the batch as a whole.
     */
    protected abstract int statementsWhenAKeyIsTakenDuringTheBatch();

    /**
     * Whether the batch waits for another session's uncommitted insert of one of its keys (H2 answers at
     * once, having written and then dropped the other part: see H2BatchSql.releaseAll).
     */
    protected boolean waitsForUncommittedRows() {
        return true;
    }

    /** Whether requests with shared parts are batched (else the backend answers null: the ordered path). */
    protected abstract boolean batchesSharedParts();

    @BeforeEach
    void setUp() {
        recording = new RecordingDataSource(dataSource());
        probe = JdbcLockBackend.builder(dataSource()).createTableIfMissing(true).build();
        closeables.add(probe);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private JdbcLockBackend backend() {
        return backend(recording);
    }

    private JdbcLockBackend backend(DataSource source) {
        JdbcLockBackend backend = JdbcLockBackend.builder(source).dialect(probe.dialect()).build();
        closeables.add(backend);
        return backend;
    }

    private LockClient client() {
        return client(recording);
    }

    /**
     * A client on {@code source}; {@code dataSource()} for one whose statements are not recorded (a
     * waiter running beside a counted call would otherwise add its own retries to the count).
     */
    private LockClient client(DataSource source) {
        LockClient client = LockClient.builder(backend(source)).defaultLease(Duration.ofSeconds(30)).build();
        closeables.add(client);
        return client;
    }

    private int statements() {
        return recording.statements.size();
    }

    private List<String> keys(int n) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(prefix + i);
        }
        return keys;
    }

    private KeyState state(String key) {
        return probe.inspect(key);
    }

    private String holder(String key) {
        KeyState state = state(key);
        return state.held() ? state.holders().get(0).owner() : null;
    }

    @Test
    void anUncontendedAcquireAllOfManyKeysIsOneBatch() {
        LockClient locks = client();
        List<String> keys = keys(8);
        int before = statements();
        try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys).lease(Duration.ofSeconds(30))
                .waitFor(Duration.ofSeconds(5)))) {
            assertThat(statements() - before).as("statements for 8 keys: " + recording.statements.subList(before,
                    statements())).isEqualTo(uncontendedBatchStatements());
            for (String key : keys) {
                assertThat(state(key).held()).as(key).isTrue();
                assertThat(state(key).holders().get(0).fencingToken()).hasValue(all.fencingToken(key));
                assertThat(all.fencingToken(key)).isPositive();
            }
        }
        for (String key : keys) {
            assertThat(state(key).held()).as(key).isFalse();
        }
    }

    @Test
    void sharedAndExclusivePartsFollowTheSharedAdmissionRules() throws Exception {
        LockClient locks = client();
        LockClient other = client();
        String x = prefix + "x";
        String r = prefix + "r";
        int before = statements();
        try (MultiLease all = locks.acquireAll(MultiLockSpec.of(List.of(x)).shared(r).lease(Duration.ofSeconds(30)))) {
            assertThat(statements() - before).as("statements: " + recording.statements.subList(before, statements()))
                    .isEqualTo(batchesSharedParts() ? uncontendedBatchStatements() : 2);
            assertThat(state(r).mode()).isEqualTo(LockMode.SHARED);
            assertThat(state(x).mode()).isEqualTo(LockMode.EXCLUSIVE);
            try (LockLease reader = other.acquire(LockSpec.of(r).shared().lease(Duration.ofSeconds(30)))) {
                assertThat(reader.fencingToken()).isGreaterThan(all.fencingToken(r));
            }
            assertThat(other.tryAcquire(x)).isEmpty();
            assertThat(other.tryAcquire(r)).as("a writer waits for the reader").isEmpty();
        }
        try (LockLease writer = other.acquire(LockSpec.of(r).lease(Duration.ofSeconds(30)))) {
            assertThat(writer.isValid()).isTrue();
        }
    }

    @Test
    void aWaitingWriterKeepsTheSharedPartOfABatchOut() throws Exception {
        LockClient locks = client();
        LockClient reader = client(dataSource());
        LockClient writer = client(dataSource());
        String x = prefix + "x";
        String r = prefix + "r";
        LockLease read = reader.acquire(LockSpec.of(r).shared().lease(Duration.ofSeconds(30)));
        CompletableFuture<LockLease> waitingWriter = CompletableFuture.supplyAsync(
                () -> writer.acquire(LockSpec.of(r).lease(Duration.ofSeconds(30)).waitFor(Duration.ofSeconds(60))));
        // the writer's marker is on the row once a new reader is refused
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            var attempt = probe.tryAcquire(new LockRequest(r, "probe:" + UUID.randomUUID(), Duration.ofSeconds(5),
                    false, LockMode.SHARED));
            if (!attempt.isGranted()) {
                break;
            }
            probe.release(attempt.grant().orElseThrow());
            assertThat(System.nanoTime()).as("the waiting writer's marker never showed").isLessThan(deadline);
            Thread.sleep(20);
        }
        int before = statements();
        assertThat(locks.tryAcquireAll(MultiLockSpec.of(List.of(x)).shared(r).lease(Duration.ofSeconds(30))))
                .as("a new reader is not admitted while a writer waits").isEmpty();
        assertThat(statements() - before).as("the refused batch (where native), then the ordered path: r is first, "
                + "and refused: " + recording.statements.subList(before, statements()))
                .isEqualTo((batchesSharedParts() ? 1 : 0) + busyAttemptStatements());
        assertThat(state(x).held()).as("nothing of the batch left on " + x).isFalse();
        assertThat(state(r).holders()).hasSize(1);
        assertThat(waitingWriter).isNotDone();
        read.close();
        try (LockLease w = waitingWriter.get(60, TimeUnit.SECONDS)) {
            assertThat(w.isValid()).isTrue();
        }
    }

    @Test
    void aBusyPartLeavesNothingOnTheServerAndTheWaitThenGetsEveryKey() throws Exception {
        LockClient locks = client();
        LockClient other = client();
        List<String> keys = keys(4);
        String busy = keys.get(2);
        LockLease holder = other.acquire(LockSpec.of(busy).lease(Duration.ofSeconds(30)));
        String holderOwner = holder(busy);
        long token = holder.fencingToken();

        int before = statements();
        assertThat(locks.tryAcquireAll(keys)).isEmpty();
        assertThat(statements() - before)
                .as("the refused batch; then the ordered path: attempts up to the busy key, releases of the two before"
                        + " it: " + recording.statements.subList(before, statements()))
                .isEqualTo(refusedBatchStatements() + 2 + busyAttemptStatements() + 2);
        for (String key : keys) {
            if (!key.equals(busy)) {
                assertThat(state(key).held()).as("nothing of the batch left: " + key).isFalse();
            }
        }
        assertThat(holder(busy)).as("the busy holder is untouched").isEqualTo(holderOwner);
        assertThat(state(busy).holders().get(0).fencingToken()).hasValue(token);
        assertThat(holder.isValid()).isTrue();

        CompletableFuture<MultiLease> waiting = CompletableFuture.supplyAsync(
                () -> locks.acquireAll(keys, Duration.ofSeconds(60)));
        Thread.sleep(200);
        assertThat(waiting).isNotDone();
        holder.close();
        try (MultiLease all = waiting.get(60, TimeUnit.SECONDS)) {
            assertThat(all.keys()).containsExactlyElementsOf(keys);
            assertThat(all.fencingToken(busy)).isGreaterThan(token);
            for (String key : keys) {
                assertThat(state(key).held()).as(key).isTrue();
            }
        }
    }

    @Test
    void aPartAlreadyHeldByTheCallersOwnerIsNestedThroughTheOrderedPath() {
        LockClient locks = client();
        List<String> keys = keys(3);
        try (LockLease outer = locks.acquire(LockSpec.of(keys.get(1)).lease(Duration.ofSeconds(30)))) {
            int before = statements();
            try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys).lease(Duration.ofSeconds(30)))) {
                assertThat(statements() - before).as("the two other keys, one by one").isEqualTo(2);
                assertThat(all.fencingToken(keys.get(1))).isEqualTo(outer.fencingToken());
            }
            assertThat(state(keys.get(1)).held()).as("the outer lease still holds its key").isTrue();
            assertThat(outer.isValid()).isTrue();
        }
        assertThat(state(keys.get(1)).held()).isFalse();
    }

    /**
     * Through the SPI: batch grants are ordinary grants (renew, renewAll, release, expiry), keys are
     * encoded as a single acquire encodes them (any first character, Unicode, hashed long keys), and a
     * busy key answers empty, not null.
     */
    @Test
    void batchGrantsRenewReleaseAndExpireAsSingleGrants() throws Exception {
        JdbcLockBackend backend = backend();
        List<String> keys = List.of(prefix + "plain", "#" + prefix + "hash-first", "\u00e9t\u00e9 " + prefix + "\uD83D\uDD12",
                "%" + prefix + "_".repeat(300), prefix + "\u00fc".repeat(200));
        List<LockRequest> requests = new ArrayList<>();
        for (String key : keys) {
            requests.add(new LockRequest(key, "batch:" + UUID.randomUUID(), Duration.ofSeconds(30), true));
        }
        long sent = System.nanoTime();
        List<Grant> grants = backend.tryAcquireAll(requests);
        assertThat(grants).hasSize(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            Grant grant = grants.get(i);
            assertThat(grant.key()).isEqualTo(keys.get(i));
            assertThat(grant.owner()).isEqualTo(requests.get(i).owner());
            assertThat(grant.requestedAtNanos()).isGreaterThanOrEqualTo(sent).isLessThanOrEqualTo(System.nanoTime());
            assertThat(state(keys.get(i)).holders()).extracting(KeyState.Holder::owner)
                    .containsExactly(requests.get(i).owner());
            assertThat(probe.tryAcquire(new LockRequest(keys.get(i), "single:" + UUID.randomUUID(),
                    Duration.ofSeconds(5), false)).isGranted()).as("the single acquire finds the same row").isFalse();
        }
        assertThat(backend.tryAcquireAll(List.of(new LockRequest(prefix + "free", "b:" + UUID.randomUUID(),
                Duration.ofSeconds(5), false), new LockRequest(keys.get(0), "b:" + UUID.randomUUID(),
                Duration.ofSeconds(5), false)))).as("a busy key: empty, not null").isEmpty();
        assertThat(state(prefix + "free").held()).isFalse();

        assertThat(backend.renew(grants.get(0), Duration.ofSeconds(60))).isPresent();
        assertThat(backend.renewAll(grants, Duration.ofSeconds(60)).gone()).isEmpty();
        assertThat(state(keys.get(1)).holders().get(0).remaining()).hasValueSatisfying(
                left -> assertThat(left).isGreaterThan(Duration.ofSeconds(40)));
        for (Grant grant : grants) {
            assertThat(backend.release(grant)).isTrue();
            assertThat(state(grant.key()).held()).isFalse();
        }

        List<LockRequest> shortLeases = new ArrayList<>();
        for (String key : keys.subList(0, 2)) {
            shortLeases.add(new LockRequest(key, "short:" + UUID.randomUUID(), Duration.ofMillis(300), false));
        }
        List<Grant> expiring = backend.tryAcquireAll(shortLeases);
        assertThat(expiring).hasSize(2);
        for (int i = 0; i < 2; i++) {
            assertThat(expiring.get(i).fencingToken()).isGreaterThan(grants.get(i).fencingToken());
        }
        Thread.sleep(700);
        assertThat(backend.renewAll(expiring, Duration.ofSeconds(5)).gone()).containsExactlyInAnyOrderElementsOf(expiring);
        List<Grant> again = backend.tryAcquireAll(List.of(
                new LockRequest(keys.get(0), "again:" + UUID.randomUUID(), Duration.ofSeconds(5), false),
                new LockRequest(keys.get(1), "again:" + UUID.randomUUID(), Duration.ofSeconds(5), false)));
        assertThat(again).as("expired batch grants are free again").hasSize(2);
        assertThat(backend.release(expiring.get(0))).isFalse();
        again.forEach(backend::release);
    }

    @Test
    void sharedRequestsAreBatchedOnlyWhereTheDialectCan() {
        JdbcLockBackend backend = backend();
        List<LockRequest> requests = List.of(
                new LockRequest(prefix + "a", "s:" + UUID.randomUUID(), Duration.ofSeconds(30), false, LockMode.SHARED),
                new LockRequest(prefix + "b", "s:" + UUID.randomUUID(), Duration.ofSeconds(30), false));
        int before = statements();
        List<Grant> grants = backend.tryAcquireAll(requests);
        if (!batchesSharedParts()) {
            assertThat(grants).as("no native batch for shared parts").isNull();
            assertThat(statements()).as("nothing sent").isEqualTo(before);
            return;
        }
        assertThat(grants).hasSize(2);
        assertThat(state(prefix + "a").mode()).isEqualTo(LockMode.SHARED);
        assertThat(state(prefix + "b").mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).isEmpty();
        for (Grant grant : grants) {
            assertThat(backend.release(grant)).isTrue();
        }
        assertThat(state(prefix + "a").held()).isFalse();
    }

    /** Counter tokens: a batch grant takes the next value of its key's one counter, as a single grant does. */
    @Test
    void batchGrantsTakeTheNextTokenOfEachKeysCounter() {
        JdbcLockBackend counter = JdbcLockBackend.builder(recording).dialect(probe.dialect())
                .fencingTokens(FencingTokens.COUNTER).build();
        closeables.add(counter);
        String a = prefix + "a";
        String b = prefix + "b";
        Grant single = counter.tryAcquire(new LockRequest(a, "one:" + UUID.randomUUID(), Duration.ofSeconds(30), false))
                .grant().orElseThrow();
        assertThat(single.fencingToken()).isEqualTo(1);
        counter.release(single);
        List<Grant> batch = counter.tryAcquireAll(List.of(
                new LockRequest(a, "two:" + UUID.randomUUID(), Duration.ofSeconds(30), false,
                        batchesSharedParts() ? LockMode.SHARED : LockMode.EXCLUSIVE),
                new LockRequest(b, "two:" + UUID.randomUUID(), Duration.ofSeconds(30), false)));
        assertThat(batch).extracting(Grant::fencingToken).containsExactly(2L, 1L);
        batch.forEach(counter::release);
        Grant after = counter.tryAcquire(new LockRequest(b, "three:" + UUID.randomUUID(), Duration.ofSeconds(30), false))
                .grant().orElseThrow();
        assertThat(after.fencingToken()).isEqualTo(2);
        counter.release(after);
    }

    /**
     * Another session inserts one of the batch's keys and commits while the batch waits for that row:
     * whatever the statement saw when it started, the answer is empty, nothing of the batch stays on the
     * server (on PostgreSQL the keys it took are given back on the same connection) and the other
     * session's hold is untouched.
     */
    @Test
    void aKeyTakenWhileTheBatchRunsLeavesNothingOfTheBatch() throws Exception {
        JdbcLockBackend backend = backend();
        String a = prefix + "a";
        String b = prefix + "b";
        List<LockRequest> requests = List.of(new LockRequest(a, "batch:" + UUID.randomUUID(), Duration.ofSeconds(30), false),
                new LockRequest(b, "batch:" + UUID.randomUUID(), Duration.ofSeconds(30), false));
        try (Connection other = dataSource().getConnection()) {
            other.setAutoCommit(false);
            try (PreparedStatement insert = other.prepareStatement("INSERT INTO mortise_locks (lock_key, lock_owner,"
                    + " fencing_token, acquired_at, expires_at) VALUES (?, 'thief', 7, " + nowPlusSeconds(0) + ", "
                    + nowPlusSeconds(60) + ")")) {
                insert.setString(1, b);
                insert.executeUpdate();
            }
            int before = statements();
            CompletableFuture<List<Grant>> batch = CompletableFuture.supplyAsync(() -> backend.tryAcquireAll(requests));
            boolean blocked = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!blocked && !batch.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(20);
                blocked = lockWaitCount() > 0;
            }
            other.commit();
            assertThat(batch.get(60, TimeUnit.SECONDS)).isEmpty();
            assertThat(blocked).as("the batch waited for the other session's row").isEqualTo(waitsForUncommittedRows());
            assertThat(statements() - before).as("statements: " + recording.statements.subList(before, statements()))
                    .isEqualTo(statementsWhenAKeyIsTakenDuringTheBatch());
        }
        assertThat(state(a).held()).as("nothing of the batch left on " + a + ": " + state(a)).isFalse();
        assertThat(holder(b)).isEqualTo("thief");
        assertThat(state(b).holders().get(0).fencingToken()).hasValue(7);
    }

    private int lockWaitCount() throws Exception {
        try (Connection c = dataSource().getConnection(); PreparedStatement s = c.prepareStatement(lockWaits());
             ResultSet rows = s.executeQuery()) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
