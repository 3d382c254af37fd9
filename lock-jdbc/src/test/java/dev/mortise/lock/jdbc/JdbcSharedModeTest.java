package dev.mortise.lock.jdbc;

import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockMode;
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
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Shared (read) holds at the SPI level, on a real database: readers together, a writer alone,
 * a waiting writer ahead of new readers across two backends (two clients), one token counter
 * for both modes, wake-ups, nothing left behind by waits that end without a grant, expiry of a
 * crashed reader's share, renewAll of mixed holds, and the statements each operation sends
 * (counted as {@link JdbcBehaviourTest} counts them). The table is looked at directly.
 */
abstract class JdbcSharedModeTest {

    /** Wide: a loaded two-core machine. */
    private static final Duration PROMPTLY = Duration.ofSeconds(15);

    protected JdbcLockBackend one;
    protected JdbcLockBackend two;

    protected abstract DataSource dataSource();

    /** The database's current time in SQL. */
    protected abstract String now();

    @BeforeEach
    void backends() {
        one = JdbcLockBackend.builder(dataSource()).createTableIfMissing(true).build();
        two = JdbcLockBackend.builder(dataSource()).build();
    }

    @AfterEach
    void close() {
        one.close();
        two.close();
    }

    /** Random keys: lengths, first characters and scripts vary, no fixed prefix. */
    static String key() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String[] heads = {"", "ü", "Ω", "_", "9", "rw", "Ключ"};
        return heads[random.nextInt(heads.length)] + UUID.randomUUID().toString().substring(0, 4 + random.nextInt(28));
    }

    static String owner() {
        return UUID.randomUUID() + ":" + ThreadLocalRandom.current().nextInt(1000);
    }

    static LockRequest reader(String key, Duration lease) {
        return new LockRequest(key, owner(), lease, false, LockMode.SHARED);
    }

    static LockRequest writer(String key, Duration lease) {
        return new LockRequest(key, owner(), lease, false, LockMode.EXCLUSIVE);
    }

    static Grant granted(Attempt attempt) {
        assertThat(attempt.isGranted()).as("granted").isTrue();
        return attempt.grant().orElseThrow();
    }

    @Test
    void readersCoexistAndExcludeWriters() {
        String key = key();
        Grant r1 = granted(one.tryAcquire(reader(key, Duration.ofSeconds(30))));
        Grant r2 = granted(two.tryAcquire(reader(key, Duration.ofSeconds(30))));
        assertThat(r2.fencingToken()).isGreaterThan(r1.fencingToken());
        Attempt busy = one.tryAcquire(writer(key, Duration.ofSeconds(5)));
        assertThat(busy.isGranted()).isFalse();
        assertThat(busy.holderRemaining()).hasValueSatisfying(r -> assertThat(r).isGreaterThan(Duration.ofSeconds(20)));
        assertThat(one.release(r1)).isTrue();
        assertThat(one.release(r1)).as("second release: no longer ours").isFalse();
        assertThat(one.tryAcquire(writer(key, Duration.ofSeconds(5))).isGranted()).as("one reader left").isFalse();
        assertThat(two.release(r2)).isTrue();
        Grant w = granted(one.tryAcquire(writer(key, Duration.ofSeconds(5))));
        assertThat(w.fencingToken()).isGreaterThan(r2.fencingToken());
        one.release(w);
    }

    @Test
    void aWriterExcludesReaders() {
        String key = key();
        Grant w = granted(one.tryAcquire(writer(key, Duration.ofSeconds(30))));
        Attempt busy = two.tryAcquire(reader(key, Duration.ofSeconds(5)));
        assertThat(busy.isGranted()).isFalse();
        assertThat(busy.holderRemaining()).hasValueSatisfying(r -> assertThat(r).isGreaterThan(Duration.ofSeconds(20)));
        assertThat(one.release(w)).isTrue();
        Grant r = granted(two.tryAcquire(reader(key, Duration.ofSeconds(5))));
        assertThat(r.fencingToken()).isGreaterThan(w.fencingToken());
        assertThat(two.release(r)).isTrue();
    }

    /** A writer's expired row is taken by a reader, which then holds it for its own lease. */
    @Test
    void aReaderTakesAnExpiredWritersRowForItsOwnLease() throws Exception {
        String key = key();
        Grant w = granted(one.tryAcquire(writer(key, Duration.ofMillis(200))));
        Thread.sleep(400);
        Grant r = granted(two.tryAcquire(reader(key, Duration.ofSeconds(30))));
        assertThat(r.fencingToken()).isGreaterThan(w.fencingToken());
        assertThat(holder(key)).isEqualTo("(shared)");
        Attempt busy = one.tryAcquire(writer(key, Duration.ofSeconds(5)));
        assertThat(busy.isGranted()).isFalse();
        assertThat(busy.holderRemaining()).hasValueSatisfying(left -> assertThat(left).isGreaterThan(Duration.ofSeconds(20)));
        assertThat(one.release(w)).as("the expired writer cannot release the readers' row").isFalse();
        assertThat(two.release(r)).isTrue();
    }

    @Test
    void tokensStrictlyIncreaseOverMixedGrants() {
        String key = key();
        List<Long> tokens = new ArrayList<>();
        List<Grant> readers = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 3; i++) {
                Grant r = granted((i % 2 == 0 ? one : two).tryAcquire(reader(key, Duration.ofSeconds(30))));
                tokens.add(r.fencingToken());
                readers.add(r);
            }
            for (Grant r : readers) {
                assertThat(one.release(r)).isTrue();
            }
            readers.clear();
            Grant w = granted(two.tryAcquire(writer(key, Duration.ofSeconds(30))));
            tokens.add(w.fencingToken());
            assertThat(two.release(w)).isTrue();
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("tokens %s", tokens).isGreaterThan(tokens.get(i - 1));
        }
    }

    @Test
    void counterTokensAreOneCounterForBothModes() throws Exception {
        String key = key();
        try (JdbcLockBackend counter = JdbcLockBackend.builder(dataSource()).fencingTokens(FencingTokens.COUNTER).build()) {
            Grant r1 = granted(counter.tryAcquire(reader(key, Duration.ofSeconds(30))));
            Grant r2 = granted(counter.tryAcquire(reader(key, Duration.ofSeconds(30))));
            counter.release(r1);
            counter.release(r2);
            Grant w = granted(counter.tryAcquire(writer(key, Duration.ofSeconds(30))));
            counter.release(w);
            Grant r3 = granted(counter.tryAcquire(reader(key, Duration.ofSeconds(30))));
            assertThat(List.of(r1.fencingToken(), r2.fencingToken(), w.fencingToken(), r3.fencingToken()))
                    .containsExactly(1L, 2L, 3L, 4L);
            counter.release(r3);
        }
    }

    /**
     * Two clients: a reader of client one holds; a writer of client two waits; a new reader of
     * client one is then refused (the writer's marker), even though only readers hold the key;
     * the first reader leaving lets the writer in, and the writer leaving lets the reader in.
     */
    @Test
    void aWaitingWriterKeepsNewReadersOutAcrossClients() throws Exception {
        String key = key();
        Grant first = granted(one.tryAcquire(reader(key, Duration.ofSeconds(60))));
        LockRequest writerRequest = writer(key, Duration.ofSeconds(30));
        CompletableFuture<Optional<Grant>> writing = CompletableFuture.supplyAsync(() -> acquire(two, writerRequest,
                Duration.ofSeconds(60)));
        awaitMarker(key, writerRequest.owner());
        LockRequest late = reader(key, Duration.ofSeconds(30));
        Attempt refused = one.tryAcquire(late);
        assertThat(refused.isGranted()).as("a new reader while a writer waits").isFalse();
        CompletableFuture<Optional<Grant>> reading = CompletableFuture.supplyAsync(() -> acquire(one, late,
                Duration.ofSeconds(60)));
        Thread.sleep(300);
        assertThat(reading).isNotDone();
        assertThat(one.release(first)).isTrue();
        Grant w = writing.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(w.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(marker(key)).as("the granted writer's marker is gone").isNull();
        Thread.sleep(300);
        assertThat(reading).as("readers wait for the writer's release").isNotDone();
        assertThat(two.release(w)).isTrue();
        Grant r = reading.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        assertThat(r.fencingToken()).isGreaterThan(w.fencingToken());
        one.release(r);
    }

    /** A writer's release wakes every waiting reader, and they hold together. */
    @Test
    void aWritersReleaseLetsAllWaitingReadersIn() throws Exception {
        String key = key();
        Grant w = granted(one.tryAcquire(writer(key, Duration.ofSeconds(60))));
        List<CompletableFuture<Optional<Grant>>> readers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            JdbcLockBackend on = i % 2 == 0 ? one : two;
            LockRequest request = reader(key, Duration.ofSeconds(30));
            readers.add(CompletableFuture.supplyAsync(() -> acquire(on, request, Duration.ofSeconds(60))));
        }
        Thread.sleep(500);
        assertThat(readers).noneMatch(CompletableFuture::isDone);
        assertThat(one.release(w)).isTrue();
        List<Grant> grants = new ArrayList<>();
        for (CompletableFuture<Optional<Grant>> reader : readers) {
            grants.add(reader.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS).orElseThrow());
        }
        String entries = entries(key);
        assertThat(grants).as("all four hold at once: %s", entries).allMatch(g -> entries.contains(g.owner()));
        for (Grant g : grants) {
            assertThat(g.fencingToken()).isGreaterThan(w.fencingToken());
            assertThat(one.release(g)).isTrue();
        }
        assertThat(holder(key)).as("the last reader leaving frees the row").isNull();
    }

    /** The last reader leaving wakes a waiting writer. */
    @Test
    void theLastReadersReleaseLetsTheWaitingWriterIn() throws Exception {
        String key = key();
        Grant r1 = granted(one.tryAcquire(reader(key, Duration.ofSeconds(60))));
        Grant r2 = granted(two.tryAcquire(reader(key, Duration.ofSeconds(60))));
        LockRequest request = writer(key, Duration.ofSeconds(30));
        CompletableFuture<Optional<Grant>> writing = CompletableFuture.supplyAsync(() -> acquire(two, request,
                Duration.ofSeconds(60)));
        awaitMarker(key, request.owner());
        one.release(r1);
        Thread.sleep(300);
        assertThat(writing).isNotDone();
        two.release(r2);
        Grant w = writing.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS).orElseThrow();
        two.release(w);
    }

    @Test
    void aTimedOutWriterLeavesNoMarkerAndATimedOutReaderNoEntry() throws Exception {
        String key = key();
        Grant r = granted(one.tryAcquire(reader(key, Duration.ofSeconds(60))));
        LockRequest w = writer(key, Duration.ofSeconds(30));
        assertThat(two.acquire(w, Duration.ofMillis(700))).isEmpty();
        assertThat(marker(key)).as("marker after the writer's wait ran out").isNull();
        Grant r2 = granted(two.tryAcquire(reader(key, Duration.ofSeconds(30))));
        one.release(r);
        two.release(r2);

        Grant held = granted(one.tryAcquire(writer(key, Duration.ofSeconds(60))));
        LockRequest late = reader(key, Duration.ofSeconds(30));
        assertThat(two.acquire(late, Duration.ofMillis(700))).isEmpty();
        assertThat(entries(key)).as("entries after the reader's wait ran out").doesNotContain(late.owner());
        assertThat(holderOf(key)).isEqualTo(held.owner());
        one.release(held);
    }

    @Test
    void anInterruptedWriterLeavesNoMarker() throws Exception {
        String key = key();
        Grant r = granted(one.tryAcquire(reader(key, Duration.ofSeconds(60))));
        LockRequest w = writer(key, Duration.ofSeconds(30));
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                two.acquire(w, Duration.ofSeconds(60));
            } catch (Throwable e) {
                outcome.set(e);
            } finally {
                done.countDown();
            }
        });
        waiter.start();
        awaitMarker(key, w.owner());
        waiter.interrupt();
        assertThat(done.await(PROMPTLY.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(marker(key)).as("marker after the interrupted wait").isNull();
        assertThat(granted(one.tryAcquire(reader(key, Duration.ofSeconds(5)))).fencingToken())
                .isGreaterThan(r.fencingToken());
        one.release(r);
    }

    /** A reader that stops renewing loses its share with its own lease, not with the other readers'. */
    @Test
    void aCrashedReadersShareEndsWithItsLease() throws Exception {
        String key = key();
        Grant crashed = granted(one.tryAcquire(reader(key, Duration.ofMillis(1500))));
        Grant live = granted(two.tryAcquire(reader(key, Duration.ofSeconds(60))));
        assertThat(two.release(live)).isTrue();
        assertThat(one.tryAcquire(writer(key, Duration.ofSeconds(5))).isGranted()).as("the crashed share still runs")
                .isFalse();
        Thread.sleep(1700);
        Grant w = granted(one.tryAcquire(writer(key, Duration.ofSeconds(5))));
        assertThat(one.renew(crashed, Duration.ofSeconds(5))).as("an expired share is gone").isEmpty();
        assertThat(one.release(crashed)).isFalse();
        one.release(w);
    }

    @Test
    void renewAndLingerOfAShareMoveOnlyItsOwnExpiry() throws Exception {
        String key = key();
        Grant a = granted(one.tryAcquire(reader(key, Duration.ofMillis(800))));
        Grant b = granted(one.tryAcquire(reader(key, Duration.ofMillis(800))));
        assertThat(one.renew(a, Duration.ofSeconds(60))).isPresent();
        Thread.sleep(1200);
        assertThat(one.renew(b, Duration.ofSeconds(5))).as("b expired").isEmpty();
        Attempt busy = two.tryAcquire(writer(key, Duration.ofSeconds(5)));
        assertThat(busy.holderRemaining()).hasValueSatisfying(r -> assertThat(r).isGreaterThan(Duration.ofSeconds(40)));
        assertThat(one.linger(a, Duration.ofMillis(300))).isTrue();
        Thread.sleep(600);
        Grant w = granted(two.tryAcquire(writer(key, Duration.ofSeconds(5))));
        two.release(w);
    }

    @Test
    void renewAllRenewsSharedAndExclusiveHoldsTogetherAndReportsTheGoneOnes() throws Exception {
        RecordingDataSource recording = new RecordingDataSource(dataSource());
        try (JdbcLockBackend recorded = JdbcLockBackend.builder(recording).dialect(one.dialect()).build()) {
            String readKey = key();
            String writeKey = key();
            String expiringKey = key();
            Grant r1 = granted(recorded.tryAcquire(reader(readKey, Duration.ofSeconds(2))));
            Grant r2 = granted(recorded.tryAcquire(reader(readKey, Duration.ofSeconds(2))));
            Grant other = granted(two.tryAcquire(reader(readKey, Duration.ofSeconds(2))));
            Grant w = granted(recorded.tryAcquire(writer(writeKey, Duration.ofSeconds(2))));
            Grant expiring = granted(recorded.tryAcquire(reader(expiringKey, Duration.ofMillis(300))));
            Grant released = granted(recorded.tryAcquire(reader(expiringKey, Duration.ofSeconds(30))));
            assertThat(recorded.release(released)).isTrue();
            Thread.sleep(500);

            recording.statements.clear();
            Set<Grant> gone = recorded.renewAll(List.of(r1, w, r2, expiring, released), Duration.ofSeconds(60)).gone();
            assertThat(gone).containsExactlyInAnyOrder(expiring, released);
            assertThat(recording.statements).as("statements for mixed holds")
                    .hasSize(one.dialect() == JdbcDialect.MYSQL ? 3 : 2);
            Thread.sleep(2000);
            assertThat(two.renew(other, Duration.ofSeconds(5))).as("the other client's reader was not renewed").isEmpty();
            assertThat(recorded.renew(r1, Duration.ofSeconds(5))).isPresent();
            assertThat(recorded.renew(r2, Duration.ofSeconds(5))).isPresent();
            assertThat(recorded.renew(w, Duration.ofSeconds(5))).isPresent();

            recording.statements.clear();
            assertThat(recorded.renewAll(List.of(w), Duration.ofSeconds(60)).gone()).isEmpty();
            assertThat(recording.statements).as("exclusive holds alone: one statement, as before").hasSize(1);
            recorded.release(r1);
            recorded.release(r2);
            recorded.release(w);
        }
    }

    /** Requests per operation, counted on the connection (JdbcBehaviourTest counts renewAll the same way). */
    @Test
    void eachSharedOperationIsOneStatementAndExclusiveOnesAreUnchanged() throws Exception {
        RecordingDataSource recording = new RecordingDataSource(dataSource());
        try (JdbcLockBackend recorded = JdbcLockBackend.builder(recording).dialect(one.dialect()).build()) {
            String key = key();
            recording.statements.clear();
            Grant r = granted(recorded.tryAcquire(reader(key, Duration.ofSeconds(30))));
            assertThat(recording.statements).as("acquire shared").hasSize(1);
            recording.statements.clear();
            assertThat(recorded.renew(r, Duration.ofSeconds(30))).isPresent();
            assertThat(recording.statements).as("renew shared").hasSize(1);
            recording.statements.clear();
            assertThat(recorded.tryAcquire(writer(key, Duration.ofSeconds(5))).isGranted()).isFalse();
            assertThat(recording.statements).as("exclusive tryAcquire, busy").hasSize(one.dialect() == JdbcDialect.H2 ? 2 : 1);
            recording.statements.clear();
            assertThat(recorded.release(r)).isTrue();
            assertThat(recording.statements).as("release shared").hasSize(1);
            recording.statements.clear();
            Grant w = recorded.acquire(writer(key, Duration.ofSeconds(5)), Duration.ofSeconds(5)).orElseThrow();
            assertThat(recording.statements).as("exclusive acquire granted at once").hasSize(1);
            recording.statements.clear();
            assertThat(recorded.tryAcquire(reader(key, Duration.ofSeconds(5))).isGranted()).isFalse();
            assertThat(recording.statements).as("acquire shared, busy").hasSize(one.dialect() == JdbcDialect.H2 ? 2 : 1);
            recording.statements.clear();
            assertThat(recorded.release(w)).isTrue();
            assertThat(recording.statements).as("release exclusive").hasSize(1);
        }
    }

    @Test
    void aTableOfThePreviousVersionKeepsExclusiveLocksAndNamesTheDdlForSharedOnes() throws Exception {
        String table = "old_locks_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(previousDdl(table));
        }
        try (JdbcLockBackend old = JdbcLockBackend.builder(dataSource()).tableName(table).build()) {
            String key = key();
            Grant w = old.acquire(writer(key, Duration.ofSeconds(5)), Duration.ofSeconds(5)).orElseThrow();
            assertThat(old.acquire(writer(key, Duration.ofSeconds(5)), Duration.ofMillis(300))).isEmpty();
            assertThat(old.release(w)).isTrue();
            assertThat(old.tryAcquire(writer(key, Duration.ofSeconds(5))).isGranted()).isTrue();
            assertThatThrownBy(() -> old.tryAcquire(reader(key(), Duration.ofSeconds(5))))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("ALTER TABLE " + table + " ADD COLUMN shared_holds");
        }
        try (JdbcLockBackend upgraded = JdbcLockBackend.builder(dataSource()).tableName(table).createTableIfMissing(true)
                .build()) {
            String key = key();
            Grant r = granted(upgraded.tryAcquire(reader(key, Duration.ofSeconds(5))));
            assertThat(upgraded.release(r)).isTrue();
        }
    }

    /**
     * Threads of two clients racing on two keys with random modes and leases far longer than the
     * run: whenever a writer holds, nobody else does, and readers do overlap. Counters are raised
     * after a grant and lowered before the release is sent, so they never overstate a hold.
     */
    @Test
    void racingReadersAndWritersNeverMeet() throws Exception {
        String[] keys = {key(), key()};
        java.util.concurrent.ConcurrentHashMap<String, int[]> state = new java.util.concurrent.ConcurrentHashMap<>();
        for (String k : keys) {
            state.put(k, new int[2]); // readers, writers
        }
        java.util.concurrent.atomic.AtomicInteger overlaps = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
        long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            JdbcLockBackend on = t % 2 == 0 ? one : two;
            workers.add(CompletableFuture.runAsync(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                    String k = keys[random.nextInt(keys.length)];
                    boolean read = random.nextInt(3) > 0;
                    LockRequest request = read ? reader(k, Duration.ofSeconds(60)) : writer(k, Duration.ofSeconds(60));
                    Grant grant = acquire(on, request, Duration.ofSeconds(30)).orElse(null);
                    if (grant == null) {
                        violations.add("not granted within 30 s: " + request);
                        continue;
                    }
                    int[] counts = state.get(k);
                    synchronized (counts) {
                        if (read) {
                            counts[0]++;
                            if (counts[1] > 0) {
                                violations.add("reader with a writer on " + k);
                            }
                            if (counts[0] > 1) {
                                overlaps.incrementAndGet();
                            }
                        } else {
                            counts[1]++;
                            writes.incrementAndGet();
                            if (counts[1] > 1 || counts[0] > 0) {
                                violations.add("writer not alone on " + k + ": " + counts[0] + " readers");
                            }
                        }
                    }
                    try {
                        Thread.sleep(random.nextInt(3));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    synchronized (counts) {
                        counts[read ? 0 : 1]--;
                    }
                    if (!on.release(grant)) {
                        violations.add("release found the hold gone: " + request);
                    }
                }
            }));
        }
        CompletableFuture.allOf(workers.toArray(new CompletableFuture[0])).get(2, TimeUnit.MINUTES);
        assertThat(violations).isEmpty();
        assertThat(writes.get()).as("writers got in").isPositive();
        assertThat(overlaps.get()).as("readers overlapped").isPositive();
    }

    /** The DDL of the version before shared locks. */
    protected abstract String previousDdl(String table);

    private static Optional<Grant> acquire(JdbcLockBackend backend, LockRequest request, Duration wait) {
        try {
            return backend.acquire(request, wait);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private void awaitMarker(String key, String owner) throws Exception {
        long deadline = System.nanoTime() + PROMPTLY.toNanos();
        while (!owner.equals(marker(key))) {
            assertThat(System.nanoTime()).as("the waiting writer's marker appears").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** The owner of the row's unexpired writer marker, or null. */
    private String marker(String key) throws SQLException {
        return string("SELECT waiting_writer FROM mortise_locks WHERE lock_key = ? AND writer_waits_until > " + now(), key);
    }

    private String holder(String key) throws SQLException {
        return string("SELECT lock_owner FROM mortise_locks WHERE lock_key = ? AND expires_at > " + now(), key);
    }

    private String holderOf(String key) throws SQLException {
        return holder(key);
    }

    private String entries(String key) throws SQLException {
        String text = string("SELECT shared_holds FROM mortise_locks WHERE lock_key = ?", key);
        return text == null ? "" : text;
    }

    private String string(String sql, String key) throws SQLException {
        try (Connection c = dataSource().getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, JdbcContractTest.stored(key));
            try (ResultSet rows = s.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }
}
