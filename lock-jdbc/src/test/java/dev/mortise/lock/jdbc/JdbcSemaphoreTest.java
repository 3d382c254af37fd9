package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.PermitLease;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Native semaphores on a real database of a polling dialect (MySQL/MariaDB, H2): what they cost,
 * counted as the statements the backend prepares (one to acquire n permits, one to release, one to
 * change the count), how they are stored (the row's {@code permits} column, NULL again after the
 * last release), a count mismatch refused writing nothing, a waiter granted after a release that
 * leaves other holders, racing clients never holding more permits than stored (read from the
 * table), and a table without the column. Leases are explicit and long, so no renewal runs while
 * statements are counted.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
abstract class JdbcSemaphoreTest {

    static final Duration LEASE = Duration.ofMinutes(2);

    private final List<AutoCloseable> closeables = new ArrayList<>();
    final String name = "sem:" + UUID.randomUUID();
    private final RecordingDataSource recording = new RecordingDataSource(dataSource());

    protected abstract DataSource dataSource();

    /** The row's {@code permits} column as text and its owner, or null when there is no row. */
    protected abstract String[] row(String key) throws Exception;

    /** The permits the row's holds keep, summed from the column as {@link #row} shows it. */
    protected abstract int heldPermits(String permitsText);

    /** The DDL of a table of the previous version: everything but the {@code permits} column. */
    protected abstract String previousDdl(String table);

    /** Statements of a refused attempt: one, or two where the refusal's answer takes a second read (H2). */
    protected int statementsOfARefusedAttempt() {
        return 1;
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    LockClient client() {
        LockClient client = LockClient.builder(JdbcLockBackend.builder(recording).createTableIfMissing(true).build())
                .build();
        closeables.add(client);
        return client;
    }

    /**
     * A polling dialect's waiters sleep up to 500 ms between attempts; a release by the same backend
     * wakes its own permit waiters at once (each acquisition is its own owner, so they wait in the
     * backend, not in the core's gate). Nine rounds, each after the waiter's back-off has reached
     * its ceiling: polling alone gives a median of about 190 ms.
     */
    @Test
    void aReleaseWakesThisBackendsOwnPermitWaitersAtOnce() throws Exception {
        LockSemaphore semaphore = client().semaphore(name, 1);
        List<Long> delays = new ArrayList<>();
        for (int round = 0; round < 9; round++) {
            PermitLease held = semaphore.acquire(1, Duration.ofSeconds(10), LEASE);
            long[] grantedAt = new long[1];
            CompletableFuture<PermitLease> waiter = CompletableFuture.supplyAsync(() -> {
                PermitLease lease = semaphore.acquire(1, Duration.ofSeconds(20), LEASE);
                grantedAt[0] = System.nanoTime();
                return lease;
            });
            Thread.sleep(1_200); // the waiter's back-off doubles from 5 ms to its 500 ms ceiling
            long released = System.nanoTime();
            held.close();
            waiter.get(20, TimeUnit.SECONDS).close();
            delays.add(TimeUnit.NANOSECONDS.toMillis(grantedAt[0] - released));
        }
        List<Long> sorted = delays.stream().sorted().toList();
        assertThat(sorted.get(sorted.size() / 2)).as("median ms from a release to the waiter's grant, of %s", delays)
                .isLessThan(100);
    }

    @Test
    void acquiringNPermitsIsOneStatementAndReleasingIsOne() throws Exception {
        LockSemaphore semaphore = client().semaphore(name, 5);
        assertThat(semaphore.isNative()).isTrue();
        recording.statements.clear();
        PermitLease three = semaphore.acquire(3, Duration.ofSeconds(5), LEASE);
        assertThat(recording.statements).as("statements to acquire 3 permits").hasSize(1);
        recording.statements.clear();
        PermitLease two = semaphore.acquire(2, Duration.ofSeconds(5), LEASE);
        assertThat(recording.statements).as("statements to acquire 2 more").hasSize(1);
        assertThat(two.fencingTokens().get(0)).isGreaterThan(three.fencingTokens().get(0));

        String[] row = row(semaphore.permitsKey());
        assertThat(row[1]).isEqualTo("(shared)");
        assertThat(row[0]).containsPattern("limit\\D+5");
        assertThat(heldPermits(row[0])).isEqualTo(5);

        recording.statements.clear();
        assertThat(semaphore.tryAcquire(1, Duration.ZERO, LEASE)).isEmpty();
        assertThat(recording.statements).as("statements of a refused tryAcquire")
                .hasSize(statementsOfARefusedAttempt());

        recording.statements.clear();
        semaphore.setPermits(6);
        assertThat(recording.statements).as("statements to change the stored count").hasSize(1);
        assertThat(row(semaphore.permitsKey())[0]).containsPattern("limit\\D+6");

        recording.statements.clear();
        three.close();
        assertThat(recording.statements).as("statements to release 3 permits").hasSize(1);
        assertThat(heldPermits(row(semaphore.permitsKey())[0])).isEqualTo(2);
        two.close();
        row = row(semaphore.permitsKey());
        assertThat(row[0]).as("nothing left of the semaphore after the last release").isNull();
        assertThat(row[1]).isNull();
    }

    @Test
    void aNewRequestWithAnotherCountIsRefusedAndLeavesNothing() throws Exception {
        LockClient client = client();
        try (PermitLease held = client.semaphore(name, 3).acquire(1, Duration.ofSeconds(5), LEASE)) {
            String before = row(client.semaphore(name, 3).permitsKey())[0];
            assertThatThrownBy(() -> client.semaphore(name, 4).acquire(1, Duration.ofSeconds(5), LEASE))
                    .isInstanceOf(PermitCountMismatchException.class)
                    .hasMessageContaining("3").hasMessageContaining("4");
            assertThat(row(client.semaphore(name, 3).permitsKey())[0]).as("the refused request wrote nothing")
                    .isEqualTo(before);
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void aReleaseThatLeavesOtherHoldersGrantsAWaiterThatNowFits() throws Exception {
        LockSemaphore semaphore = client().semaphore(name, 3);
        PermitLease one = semaphore.acquire(1, Duration.ofSeconds(5), LEASE);
        PermitLease two = semaphore.acquire(2, Duration.ofSeconds(5), LEASE);
        LockSemaphore other = client().semaphore(name, 3);
        CompletableFuture<PermitLease> waiter = CompletableFuture.supplyAsync(
                () -> other.acquire(2, Duration.ofMinutes(3), LEASE));
        Thread.sleep(1000);
        assertThat(waiter).as("2 more do not fit while 3 are held").isNotDone();
        two.close(); // one still holds 1 permit: the row stays held, and the waiter for 2 now fits
        // Polled, not pushed: granted at the waiter's next attempt (backoff of at most a few seconds).
        try (PermitLease granted = waiter.get(60, TimeUnit.SECONDS)) {
            assertThat(granted.count()).isEqualTo(2);
            assertThat(heldPermits(row(semaphore.permitsKey())[0])).isEqualTo(3);
        }
        one.close();
        assertThat(row(semaphore.permitsKey())[0]).isNull();
    }

    /**
     * 6 threads of 2 clients take 1 or 2 of 3 permits at random; after every grant the table is read:
     * its holds never keep more than 3 permits (long leases: nothing expires, every hold is released).
     */
    @Test
    void racingClientsNeverHoldMorePermitsThanStoredInTheTable() throws Exception {
        LockClient a = client();
        LockClient b = client();
        int permits = 3;
        String key = a.semaphore(name, permits).permitsKey();
        AtomicInteger grants = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<String> violations = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        long seed = System.nanoTime();
        long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            LockSemaphore semaphore = (t % 2 == 0 ? a : b).semaphore(name, permits);
            Random random = new Random(seed + t);
            threads.add(new Thread(() -> {
                try {
                    while (System.nanoTime() - end < 0) {
                        int n = 1 + random.nextInt(2);
                        Optional<PermitLease> got = semaphore.tryAcquire(n, Duration.ofSeconds(2), LEASE);
                        if (got.isEmpty()) {
                            continue;
                        }
                        try (PermitLease lease = got.get()) {
                            grants.incrementAndGet();
                            int held = heldPermits(row(key)[0]);
                            most.accumulateAndGet(held, Math::max);
                            if (held > permits || held < n) {
                                violations.add(held + " permits in the table while holding " + lease.count());
                            }
                            Thread.sleep(random.nextInt(10));
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "semaphore-race-" + t));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(90));
            assertThat(thread.isAlive()).as(thread.getName() + " still running").isFalse();
        }
        assertThat(failures).as("failures (seed " + seed + ")").isEmpty();
        assertThat(violations).as("seed " + seed).isEmpty();
        assertThat(grants.get()).isGreaterThan(6);
        assertThat(most.get()).as("the holds reached more than one permit at once").isGreaterThan(1);
        assertThat(row(key)[0]).as("nothing left after the last release").isNull();
    }

    @Test
    void aTableWithoutThePermitsColumnKeepsLocksAndNamesTheDdl() throws Exception {
        String table = "old_sem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(previousDdl(table));
        }
        try (LockClient old = LockClient.builder(JdbcLockBackend.builder(dataSource()).tableName(table).build()).build()) {
            old.acquire("plain:" + name, Duration.ofSeconds(5)).close();
            assertThatThrownBy(() -> old.semaphore(name, 2).acquire(1, Duration.ofSeconds(5), LEASE))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("ALTER TABLE " + table + " ADD COLUMN permits");
        }
        try (LockClient upgraded = LockClient.builder(JdbcLockBackend.builder(dataSource()).tableName(table)
                .createTableIfMissing(true).build()).build()) {
            upgraded.semaphore(name, 2).acquire(2, Duration.ofSeconds(5), LEASE).close();
        }
    }
}
