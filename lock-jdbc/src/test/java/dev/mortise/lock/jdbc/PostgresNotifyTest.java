package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.spi.BackendGuarantees;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * PostgreSQL waiters are woken by NOTIFY on release. The waiters here poll only once a
 * minute and the holder's lease is a minute long, so a waiter granted within seconds of a
 * release can only have been woken by the notification.
 */
class PostgresNotifyTest {

    private static final Duration POLL = Duration.ofMinutes(1);
    private static final Duration PROMPTLY = Duration.ofSeconds(10);

    private RecordingDataSource waiterSource;
    private LockClient holder;
    private LockClient waiter;

    @BeforeEach
    void clients() {
        holder = LockClient.builder(JdbcLockBackend.builder(TestDatabases.postgres()).createTableIfMissing(true).build())
                .build();
        waiterSource = new RecordingDataSource(TestDatabases.postgres());
        waiter = LockClient.builder(JdbcLockBackend.builder(waiterSource).pushedPollInterval(POLL).build()).build();
    }

    @AfterEach
    void close() {
        waiter.close();
        holder.close();
    }

    @Test
    void waiterWakesOnReleaseLongBeforeItsPollInterval() throws Exception {
        assertThat(waiter.guarantees().wakeup()).isEqualTo(BackendGuarantees.Wakeup.PUSH);
        String key = "notify:" + UUID.randomUUID();
        LockLease held = holder.acquire(LockSpec.of(key).lease(POLL));
        CompletableFuture<LockLease> waiting = CompletableFuture.supplyAsync(() -> waiter.acquire(key, Duration.ofMinutes(2)));
        Thread.sleep(1000);
        assertThat(waiting).isNotDone();
        long released = System.nanoTime();
        held.close();
        LockLease granted = waiting.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(PROMPTLY);
        assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
        CompletableFuture.runAsync(granted::close).get(30, TimeUnit.SECONDS);
        // The first attempt may be sent twice: once more on a fresh connection if the pool handed
        // out one the server had closed (another test here terminates connections).
        assertThat(acquireStatements()).as("attempts: the first, one after LISTEN came up, one after the wake-up")
                .isLessThanOrEqualTo(4);
    }

    @Test
    void oneListeningConnectionServesEveryWaiterOfABackend() throws Exception {
        List<LockLease> held = new ArrayList<>();
        List<CompletableFuture<LockLease>> waiting = new ArrayList<>();
        // Count the LISTENs run from now on: pooled connections whose last statement was an earlier
        // backend's LISTEN come and go from the plain count as the pool lends them out again.
        java.sql.Timestamp since = databaseNow();
        for (int i = 0; i < 4; i++) {
            String key = "notify:many:" + i + ":" + UUID.randomUUID();
            held.add(holder.acquire(LockSpec.of(key).lease(POLL)));
            waiting.add(CompletableFuture.supplyAsync(() -> waiter.acquire(key, Duration.ofMinutes(2))));
        }
        // the listener starts with the first waiter: wait until its LISTEN shows (not a fixed sleep), then a
        // while longer, in which the other three waiters must not open LISTENs of their own
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (listensSince(since) < 1 && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        Thread.sleep(1000);
        assertThat(listensSince(since)).as("LISTEN connections opened by one backend with four waiters")
                .isEqualTo(1);
        for (LockLease lease : held) {
            lease.close();
        }
        for (CompletableFuture<LockLease> future : waiting) {
            LockLease granted = future.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS);
            CompletableFuture.runAsync(granted::close).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void listenerReconnectsWhenItsConnectionIsKilled() throws Exception {
        String first = "notify:before-kill:" + UUID.randomUUID();
        LockLease held = holder.acquire(LockSpec.of(first).lease(POLL));
        CompletableFuture<LockLease> waiting = CompletableFuture.supplyAsync(() -> waiter.acquire(first, Duration.ofMinutes(2)));
        Thread.sleep(1000);
        held.close();
        CompletableFuture.runAsync(() -> waiting.join().close()).get(PROMPTLY.toSeconds(), TimeUnit.SECONDS);

        int killed = execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'");
        assertThat(killed).isGreaterThanOrEqualTo(1);

        String second = "notify:after-kill:" + UUID.randomUUID();
        LockLease heldAgain = holder.acquire(LockSpec.of(second).lease(POLL));
        CompletableFuture<LockLease> waitingAgain = CompletableFuture.supplyAsync(
                () -> waiter.acquire(second, Duration.ofMinutes(2)));
        Thread.sleep(3000); // the listener retries within a few hundred milliseconds
        heldAgain.close();
        LockLease granted = waitingAgain.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS);
        CompletableFuture.runAsync(granted::close).get(30, TimeUnit.SECONDS);
    }

    private long acquireStatements() {
        return waiterSource.statements.stream().filter(sql -> sql.contains("ON CONFLICT")).count();
    }

    private static java.sql.Timestamp databaseNow() throws Exception {
        try (Connection c = TestDatabases.postgres().getConnection(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery("SELECT clock_timestamp()")) {
            rows.next();
            return rows.getTimestamp(1);
        }
    }

    private static int listensSince(java.sql.Timestamp since) throws Exception {
        try (Connection c = TestDatabases.postgres().getConnection();
             java.sql.PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM pg_stat_activity"
                     + " WHERE query LIKE 'LISTEN%' AND query_start >= ?")) {
            s.setTimestamp(1, since);
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    private static int execute(String query) throws Exception {
        try (Connection c = TestDatabases.postgres().getConnection(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery(query)) {
            int count = 0;
            while (rows.next()) {
                count += query.startsWith("SELECT COUNT") ? rows.getInt(1) : 1;
            }
            return count;
        }
    }
}
