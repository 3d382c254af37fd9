package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.tck.server.PostgresServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * PostgreSQL notifies a release only when somebody waits for the key (issue 19). A probe connection
 * LISTENs on the table's channel and counts the notifications per key. The waiters poll once a minute
 * and holders' leases are a minute long, so a waiter granted within seconds of a release was woken by
 * the notification: a lost wake-up shows as a wait of about a minute.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PostgresNotifyInterestTest {

    private static final Duration POLL = Duration.ofMinutes(1);
    private static final Duration PROMPTLY = Duration.ofSeconds(15);

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Map<String, Integer> notified = new ConcurrentHashMap<>();
    private Connection probe;

    @BeforeEach
    void listen() throws Exception {
        // the table exists before the probe listens
        JdbcLockBackend.builder(TestDatabases.postgres()).createTableIfMissing(true).build().close();
        PostgresServer server = TestDatabases.postgresServer();
        probe = DriverManager.getConnection(server.jdbcUrl(), server.user(), null);
        try (Statement statement = probe.createStatement()) {
            statement.execute("LISTEN \"mortise_locks_released\"");
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        probe.close();
    }

    private LockClient client() {
        LockClient client = LockClient.builder(JdbcLockBackend.builder(TestDatabases.postgres())
                .pushedPollInterval(POLL).build()).build();
        closeables.add(client);
        return client;
    }

    /** The notifications of {@code key} heard so far, after draining the probe for {@code millis}. */
    private int notifies(String key, int millis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        PGConnection pg = probe.unwrap(PGConnection.class);
        while (System.nanoTime() < deadline) {
            PGNotification[] heard = pg.getNotifications(100);
            if (heard != null) {
                for (PGNotification notification : heard) {
                    notified.merge(notification.getParameter(), 1, Integer::sum);
                }
            }
        }
        return notified.getOrDefault(key, 0);
    }

    @Test
    void releasesThatNobodyWaitsForSendNoNotify() throws Exception {
        LockClient locks = client();
        String key = "interest:alone:" + UUID.randomUUID();
        String other = "interest:alone:other:" + UUID.randomUUID();
        for (int i = 0; i < 10; i++) {
            locks.acquire(LockSpec.of(key).lease(POLL)).close();
        }
        for (int i = 0; i < 3; i++) {
            try (LockLease a = locks.acquire(LockSpec.of(key).shared().lease(POLL));
                 LockLease b = locks.acquire(LockSpec.of(key).shared().lease(POLL))) {
                assertThat(a.isValid() && b.isValid()).isTrue();
            }
        }
        try (MultiLease both = locks.acquireAll(List.of(key, other), Duration.ofSeconds(5))) {
            assertThat(both.isValid()).isTrue();
        }
        assertThat(notifies(key, 1000)).as("notifies of releases with no waiter").isZero();
        assertThat(notifies(other, 0)).isZero();
    }

    @Test
    void aReleaseWithAWaiterNotifiesOnceAndTheWaitersOwnReleaseDoesNot() throws Exception {
        LockClient holder = client();
        LockClient waiter = client();
        String key = "interest:waited:" + UUID.randomUUID();
        LockLease held = holder.acquire(LockSpec.of(key).lease(POLL));
        CompletableFuture<LockLease> waiting = CompletableFuture.supplyAsync(
                () -> waiter.acquire(LockSpec.of(key).lease(POLL).waitFor(Duration.ofMinutes(2))));
        awaitWaiters(key, 1);
        assertThat(waiting).isNotDone();
        long released = System.nanoTime();
        held.close();
        LockLease granted = waiting.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(PROMPTLY);
        CompletableFuture.runAsync(granted::close).get(30, TimeUnit.SECONDS);
        assertThat(notifies(key, 1000)).as("the holder's release notifies; the waiter, granted, waits no more").isEqualTo(1);
    }

    @Test
    void readersWaitingForAWriterAreNotifiedOnceAndTheirReleasesNot() throws Exception {
        LockClient holder = client();
        LockClient readers = client();
        String key = "interest:readers:" + UUID.randomUUID();
        LockLease held = holder.acquire(LockSpec.of(key).lease(POLL));
        List<CompletableFuture<LockLease>> waiting = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            waiting.add(CompletableFuture.supplyAsync(
                    () -> readers.acquire(LockSpec.of(key).shared().lease(POLL).waitFor(Duration.ofMinutes(2)))));
        }
        awaitWaiters(key, 2);
        held.close();
        // both are granted before either leaves: a reader leaving while the other still waits frees the
        // row for a waiter, which rightly notifies (CI saw 2 when the first was closed before the second's retry)
        List<LockLease> granted = new ArrayList<>();
        for (CompletableFuture<LockLease> reader : waiting) {
            granted.add(reader.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS));
        }
        for (LockLease lease : granted) {
            CompletableFuture.runAsync(lease::close).get(30, TimeUnit.SECONDS);
        }
        assertThat(notifies(key, 1000)).as("the writer's release notifies once; the readers' releases do not")
                .isEqualTo(1);
    }

    /**
     * Many quick hand-offs between waiters of two backends, with waiters that give up after a few
     * milliseconds mixed in: every waiter with a long wait is granted long before its one-minute poll,
     * so none missed the notification it relied on.
     */
    @Test
    void manyWaitersWithShortAndLongWaitsLoseNoWakeUp() throws Exception {
        List<LockClient> clients = List.of(client(), client());
        int rounds = 12;
        int longWaiters = 3;
        int shortWaiters = 2;
        for (int round = 0; round < rounds; round++) {
            String key = "interest:handoff:" + round + ":" + UUID.randomUUID();
            LockLease held = clients.get(0).acquire(LockSpec.of(key).lease(POLL));
            List<CompletableFuture<Duration>> waits = new ArrayList<>();
            for (int i = 0; i < longWaiters; i++) {
                LockClient client = clients.get(i % 2);
                waits.add(CompletableFuture.supplyAsync(() -> {
                    long start = System.nanoTime();
                    try (LockLease lease = client.acquire(LockSpec.of(key).lease(POLL).waitFor(Duration.ofMinutes(2)))) {
                        sleep(ThreadLocalRandom.current().nextInt(5));
                        return Duration.ofNanos(System.nanoTime() - start);
                    }
                }));
            }
            List<CompletableFuture<Optional<LockLease>>> shortWaits = new ArrayList<>();
            for (int i = 0; i < shortWaiters; i++) {
                LockClient client = clients.get((i + 1) % 2);
                boolean shared = i == 0;
                shortWaits.add(CompletableFuture.supplyAsync(() -> {
                    LockSpec spec = LockSpec.of(key).lease(POLL).waitFor(Duration.ofMillis(20 + ThreadLocalRandom.current().nextInt(200)));
                    return client.tryAcquire(shared ? spec.shared() : spec);
                }));
            }
            sleep(ThreadLocalRandom.current().nextInt(300));
            held.close();
            for (CompletableFuture<Optional<LockLease>> shortWait : shortWaits) {
                shortWait.get(60, TimeUnit.SECONDS).ifPresent(LockLease::close);
            }
            for (CompletableFuture<Duration> wait : waits) {
                assertThat(wait.get(90, TimeUnit.SECONDS)).as("round " + round + ": a waiter granted long before its "
                        + "poll").isLessThan(POLL.minus(PROMPTLY).minus(PROMPTLY));
            }
        }
    }

    @Test
    void waitersThatGaveUpLeaveNoInterestBehind() throws Exception {
        LockClient holder = client();
        LockClient waiter = client();
        String key = "interest:gave-up:" + UUID.randomUUID();
        LockLease held = holder.acquire(LockSpec.of(key).lease(POLL));
        assertThat(waiter.tryAcquire(LockSpec.of(key).waitFor(Duration.ofMillis(300)))).as("a writer times out").isEmpty();
        assertThat(waiter.tryAcquire(LockSpec.of(key).shared().waitFor(Duration.ofMillis(300)))).as("a reader times out")
                .isEmpty();
        String row = waitersOf(key);
        held.close();
        assertThat(notifies(key, 1000)).as("the writer and the reader removed their entries when they gave up: " + row)
                .isZero();
    }

    /**
     * A backend built with {@code listenForReleases(false)} polls and can hear no notification, so its
     * waiting writers, readers and permit requests record no interest: the releases they wait for
     * send no NOTIFY. A listening waiter beside them still gets its one.
     */
    @Test
    void waitersThatDoNotListenRecordNoInterest() throws Exception {
        LockClient holder = client();
        LockClient deaf = LockClient.builder(JdbcLockBackend.builder(TestDatabases.postgres())
                .listenForReleases(false).build()).build();
        closeables.add(deaf);
        String writerKey = "interest:deaf:writer:" + UUID.randomUUID();
        String readerKey = "interest:deaf:reader:" + UUID.randomUUID();
        dev.mortise.lock.LockSemaphore permits = holder.semaphore("interest:deaf:permits:" + UUID.randomUUID(), 1);
        dev.mortise.lock.LockSemaphore deafPermits = deaf.semaphore(permits.name(), 1);
        LockLease writerHeld = holder.acquire(LockSpec.of(writerKey).lease(POLL));
        LockLease readerHeld = holder.acquire(LockSpec.of(readerKey).lease(POLL));
        dev.mortise.lock.PermitLease permitHeld = permits.acquire(1, Duration.ofSeconds(5), POLL);
        CompletableFuture<LockLease> writer = CompletableFuture.supplyAsync(
                () -> deaf.acquire(LockSpec.of(writerKey).lease(POLL).waitFor(Duration.ofMinutes(2))));
        CompletableFuture<LockLease> reader = CompletableFuture.supplyAsync(
                () -> deaf.acquire(LockSpec.of(readerKey).shared().lease(POLL).waitFor(Duration.ofMinutes(2))));
        CompletableFuture<dev.mortise.lock.PermitLease> permit = CompletableFuture.supplyAsync(
                () -> deafPermits.acquire(1, Duration.ofMinutes(2), POLL));
        Thread.sleep(1000);
        String rows = waitersOf(writerKey) + "; " + waitersOf(readerKey);
        writerHeld.close();
        readerHeld.close();
        permitHeld.close();
        CompletableFuture.runAsync(() -> writer.join().close()).get(60, TimeUnit.SECONDS);
        CompletableFuture.runAsync(() -> reader.join().close()).get(60, TimeUnit.SECONDS);
        CompletableFuture.runAsync(() -> permit.join().close()).get(60, TimeUnit.SECONDS);
        assertThat(notifies(writerKey, 1000)).as("a release only a polling writer waited for (%s)", rows).isZero();
        assertThat(notifies(readerKey, 0)).as("a release only a polling reader waited for (%s)", rows).isZero();
        assertThat(notifies(permits.permitsKey(), 0)).as("a permit release only a polling request waited for").isZero();

        LockClient listener = client();
        LockLease held = holder.acquire(LockSpec.of(writerKey).lease(POLL));
        // each closes as soon as it is granted, so whichever comes second is not kept waiting
        CompletableFuture<Void> polling = CompletableFuture.runAsync(
                () -> deaf.acquire(LockSpec.of(writerKey).lease(POLL).waitFor(Duration.ofMinutes(2))).close());
        CompletableFuture<Void> listening = CompletableFuture.runAsync(
                () -> listener.acquire(LockSpec.of(writerKey).lease(POLL).waitFor(Duration.ofMinutes(2))).close());
        awaitWaiters(writerKey, 1); // the listening one's entry (the polling one records none)
        held.close();
        CompletableFuture.allOf(polling, listening).get(90, TimeUnit.SECONDS);
        assertThat(notifies(writerKey, 1000)).as("a listening waiter beside a polling one is still woken")
                .isGreaterThanOrEqualTo(1);
    }

    /**
     * A table created before the {@code waiters} column: waits still work and are woken (every release
     * notifies, as before), and {@code createTableIfMissing(true)} adds the column, after which a
     * release nobody waits for is silent.
     */
    @Test
    void aTableWithoutTheWaitersColumnNotifiesEveryReleaseUntilUpgraded() throws Exception {
        String table = "prev_locks_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        try (Connection c = TestDatabases.postgres().getConnection(); Statement statement = c.createStatement()) {
            statement.execute(dev.mortise.lock.jdbc.internal.Schema.ddl(dev.mortise.lock.spi.SqlDatabase.POSTGRESQL,
                    dev.mortise.lock.jdbc.internal.TableName.of(table)).replace(",\n    waiters       JSONB", ""));
            try (java.sql.ResultSet rows = statement.executeQuery("SELECT count(*) FROM information_schema.columns"
                    + " WHERE table_name = '" + table + "' AND column_name = 'waiters'")) {
                rows.next();
                assertThat(rows.getInt(1)).as("the table of the previous version has no waiters column").isZero();
            }
        }
        try (Statement statement = probe.createStatement()) {
            statement.execute("LISTEN \"" + table + "_released\"");
        }
        LockClient old = LockClient.builder(JdbcLockBackend.builder(TestDatabases.postgres()).tableName(table)
                .pushedPollInterval(POLL).build()).build();
        closeables.add(old);
        String key = "interest:old-table:" + UUID.randomUUID();
        old.acquire(LockSpec.of(key).lease(POLL)).close();
        assertThat(notifies(key, 500)).as("every release notifies on the old table").isEqualTo(1);
        LockLease held = old.acquire(LockSpec.of(key).lease(POLL));
        CompletableFuture<LockLease> waiting = CompletableFuture.supplyAsync(
                () -> old.acquire(LockSpec.of(key).shared().lease(POLL).waitFor(Duration.ofMinutes(2))));
        Thread.sleep(1000);
        held.close();
        CompletableFuture.runAsync(() -> waiting.join().close()).get(PROMPTLY.toSeconds(), TimeUnit.SECONDS);

        LockClient upgraded = LockClient.builder(JdbcLockBackend.builder(TestDatabases.postgres()).tableName(table)
                .createTableIfMissing(true).build()).build();
        closeables.add(upgraded);
        int before = notifies(key, 500);
        upgraded.acquire(LockSpec.of(key).lease(POLL)).close();
        assertThat(notifies(key, 500) - before).as("after createTableIfMissing added the column").isZero();
    }

    /**
     * Waits until the row records {@code count} waiters, so the release after it is surely one they
     * wait for (a fixed sleep is not enough on a loaded machine).
     */
    private static void awaitWaiters(String key, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int seen = -1;
        while (System.nanoTime() < deadline) {
            try (Connection c = TestDatabases.postgres().getConnection();
                 java.sql.PreparedStatement s = c.prepareStatement("SELECT COALESCE((SELECT count(*) FROM"
                         + " jsonb_object_keys(waiters)), 0) FROM mortise_locks WHERE lock_key = ?")) {
                s.setString(1, key);
                try (java.sql.ResultSet rows = s.executeQuery()) {
                    seen = rows.next() ? rows.getInt(1) : 0;
                }
            }
            if (seen >= count) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the row of " + key + " records " + seen + " waiters after 30 s, expected " + count);
    }

    /** The row's waiters and the database's time in µs, for messages. */
    private static String waitersOf(String key) throws Exception {
        try (Connection c = TestDatabases.postgres().getConnection();
             java.sql.PreparedStatement s = c.prepareStatement("SELECT waiters::text, CAST(FLOOR(EXTRACT(EPOCH FROM"
                     + " clock_timestamp()) * 1000000) AS BIGINT) FROM mortise_locks WHERE lock_key = ?")) {
            s.setString(1, key);
            try (java.sql.ResultSet rows = s.executeQuery()) {
                return rows.next() ? "waiters " + rows.getString(1) + " at " + rows.getLong(2) : "no row";
            }
        }
    }

    private static void sleep(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
