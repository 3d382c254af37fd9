package dev.mortise.lock.jdbc;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.PermitLease;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Native semaphores on a real PostgreSQL server: what they cost, counted as the statements the backend
 * prepares (one to acquire n permits, one to release, one to change the count), how they are stored
 * (the row's {@code permits} column, NULL again after the last release), and that a permit release
 * that leaves other holders wakes a waiter by NOTIFY (waiters poll only once a minute here, so a lost
 * wake-up shows as a wait of about a minute). Leases are explicit and long, so no renewal runs while
 * statements are counted.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PostgresSemaphoreTest {

    private static final Duration LEASE = Duration.ofMinutes(2);
    private static final Duration POLL = Duration.ofMinutes(1);
    private static final Duration PROMPTLY = Duration.ofSeconds(20);

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String name = "sem:" + UUID.randomUUID();
    private final RecordingDataSource recording = new RecordingDataSource(TestDatabases.postgres());

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private LockClient client() {
        LockClient client = LockClient.builder(JdbcLockBackend.builder(recording).createTableIfMissing(true)
                .pushedPollInterval(POLL).build()).build();
        closeables.add(client);
        return client;
    }

    /** The row's {@code permits} column and owner, as text. */
    private static String[] row(String key) throws Exception {
        try (Connection c = TestDatabases.postgres().getConnection();
             PreparedStatement s = c.prepareStatement(
                     "SELECT CAST(permits AS text), lock_owner FROM mortise_locks WHERE lock_key = ?")) {
            s.setString(1, JdbcContractTest.stored(key));
            try (ResultSet rows = s.executeQuery()) {
                return rows.next() ? new String[]{rows.getString(1), rows.getString(2)} : null;
            }
        }
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
        assertThat(row[0]).contains("\"limit\": 5").contains(": 3").contains(": 2");

        recording.statements.clear();
        assertThat(semaphore.tryAcquire(1, Duration.ZERO, LEASE)).isEmpty();
        assertThat(recording.statements).as("statements of a refused tryAcquire").hasSize(1);

        recording.statements.clear();
        semaphore.setPermits(6);
        assertThat(recording.statements).as("statements to change the stored count").hasSize(1);
        assertThat(row(semaphore.permitsKey())[0]).contains("\"limit\": 6");

        recording.statements.clear();
        three.close();
        assertThat(recording.statements).as("statements to release 3 permits").hasSize(1);
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
    void aReleaseThatLeavesOtherHoldersWakesAWaiterThatNowFits() throws Exception {
        LockSemaphore semaphore = client().semaphore(name, 3);
        PermitLease one = semaphore.acquire(1, Duration.ofSeconds(5), LEASE);
        PermitLease two = semaphore.acquire(2, Duration.ofSeconds(5), LEASE);
        LockSemaphore other = client().semaphore(name, 3);
        CompletableFuture<PermitLease> waiter = CompletableFuture.supplyAsync(
                () -> other.acquire(2, Duration.ofMinutes(3), LEASE));
        Thread.sleep(1000); // the waiter's refused attempt has recorded it (a late one is granted at once anyway)
        long start = System.nanoTime();
        two.close(); // one still holds 1 permit: the row stays held, and the waiter for 2 now fits
        try (PermitLease granted = waiter.get(PROMPTLY.toSeconds() + 30, TimeUnit.SECONDS)) {
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("woken by NOTIFY, not by the minute's poll")
                    .isLessThan(PROMPTLY);
            assertThat(granted.count()).isEqualTo(2);
        }
        one.close();
        assertThat(row(semaphore.permitsKey())[0]).isNull();
    }
}
