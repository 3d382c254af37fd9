package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The replication-safety option ({@code WAIT}) on a real master with one real replica. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisReplicationTest {

    private static final Duration SLACK = Duration.ofSeconds(5);
    private static RedisServer master;
    private static RedisServer replica;

    private final String key = "replicated:" + UUID.randomUUID();
    private final RedisKeys keys = RedisKeys.of("mortise", key);

    @BeforeAll
    static void startServers() throws Exception {
        master = new RedisServer();
        master.start();
        replica = new RedisServer().args("--replicaof", "127.0.0.1", Integer.toString(master.port()));
        replica.start();
        RedisLockBackendTest.await(Duration.ofSeconds(30), () -> info(replica).contains("master_link_status:up"),
                "the replica to sync with the master");
    }

    @AfterAll
    static void stopServers() {
        replica.close();
        master.close();
    }

    private static String info(RedisServer server) {
        try {
            return RedisCli.run(server.port(), "INFO", "replication");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private LockClient client(int replicas, Duration timeout) {
        return LockClient.builder(builder().address(master.address()).waitForReplicas(replicas, timeout)
                .build()).defaultLease(Duration.ofSeconds(1)).build();
    }

    /** A builder on the driver under test (Redisson here; the Lettuce subclass overrides it). */
    RedisLockBackendBuilder builder() {
        return RedisLockBackend.builder();
    }

    @Test
    void grantAndRenewalsCountOnceTheReplicaHasThem() throws Exception {
        try (LockClient client = client(1, Duration.ofSeconds(2))) {
            try (LockLease lease = client.acquire(key, SLACK)) {
                // WAIT returned, so the replica already has the hold and the token.
                assertThat(replica.command("GET", keys.lock())).isNotEqualTo("$-1");
                assertThat(replica.command("GET", keys.fence())).isEqualTo(Long.toString(lease.fencingToken()));
                Thread.sleep(3000);
                assertThat(lease.isValid()).as("renewed through WAIT").isTrue();
            }
        }
    }

    @Test
    void grantThatTooFewReplicasAcknowledgeIsWithdrawn() throws Exception {
        try (LockClient client = client(2, Duration.ofMillis(300))) {
            assertThatThrownBy(() -> client.tryAcquire(key)).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining(key).hasMessageContaining("1 of the required 2 replica")
                    .hasMessageContaining("withdrawn");
            assertThat(client.heldLocks()).isEmpty();
            RedisLockBackendTest.await(SLACK, () -> {
                try {
                    return master.command("EXISTS", keys.lock()).equals(":0");
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }, "the withdrawn grant to be deleted");
        }
    }

    /**
     * Fair mode hands the lock to the next waiter inside the release script, which has no
     * {@code WAIT} of its own: a waiter whose grants need replicas must not take the hand-off as
     * a grant, but ask again, so that its grant passes {@code WAIT} (found by the issue 28 audit:
     * the hand-off was a grant no replica had acknowledged).
     */
    @Test
    void aFairHandOffCountsOnlyOnceTheReplicasHaveIt() throws Exception {
        try (LockClient holder = LockClient.builder(builder().address(master.address()).fair(true).build())
                .defaultLease(Duration.ofSeconds(1)).build();
             LockClient waiter = LockClient.builder(builder().address(master.address()).fair(true)
                     .waitForReplicas(2, Duration.ofMillis(300)).build()).defaultLease(Duration.ofSeconds(1)).build()) {
            LockLease held = holder.acquire(key, SLACK);
            java.util.concurrent.CompletableFuture<LockLease> waiting = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> waiter.acquire(key, Duration.ofSeconds(20)));
            RedisLockBackendTest.await(SLACK, () -> {
                try {
                    return master.command("EXISTS", keys.queue()).equals(":1");
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }, "the waiter to be queued");
            held.close(); // the release hands the lock to the waiter
            assertThatThrownBy(waiting::join).hasCauseInstanceOf(LockBackendException.class)
                    .hasMessageContaining("1 of the required 2 replica");
            assertThat(waiter.heldLocks()).isEmpty();
        }
    }
}
