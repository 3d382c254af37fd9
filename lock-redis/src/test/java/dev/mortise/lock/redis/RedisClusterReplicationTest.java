package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The replication-safety option ({@code WAIT}) on a real Redis Cluster of three masters with one
 * replica each: {@code WAIT} must go to the master that took the writes (it counts that node's
 * replicas), for every slot a batch touches.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedisClusterReplicationTest {

    static final Duration SLACK = Duration.ofSeconds(10);
    static RedisClusterFixture cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = new RedisClusterFixture(3, true);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A builder on the driver under test (Redisson here; the Lettuce subclass overrides it). */
    RedisLockBackendBuilder builder() {
        return RedisLockBackend.builder();
    }

    private LockBackend backend(int replicas, Duration timeout) {
        return builder().clusterNodes(cluster.addresses()).waitForReplicas(replicas, timeout).build();
    }

    LockClient client(int replicas, Duration timeout) {
        return LockClient.builder(backend(replicas, timeout)).defaultLease(Duration.ofSeconds(1)).build();
    }

    static RedisKeys keys(String key) {
        return RedisKeys.of("mortise", key);
    }

    /** A fresh key whose slot's master is {@code master}. */
    static String keyOn(RedisServer master, String prefix) throws IOException {
        for (int i = 0; i < 10_000; i++) {
            String key = prefix + UUID.randomUUID();
            if (cluster.masterOf(keys(key).lock()).port() == master.port()) {
                return key;
            }
        }
        throw new IllegalStateException("no key found on " + master);
    }

    @Test
    void grantsRenewalsAndReleasesInManySlotsAreOnTheMastersReplicaWhenTheyReturn() throws Exception {
        List<String> prefixes = List.of("a", "Z", "0", "{", "}", "{x}", " ", "é", "日本", "Ω-", "🔒", "\t");
        Set<Integer> masters = new HashSet<>();
        List<LockLease> leases = new ArrayList<>();
        try (LockClient client = client(1, Duration.ofSeconds(2))) {
            for (String prefix : prefixes) {
                String key = prefix + UUID.randomUUID();
                LockLease lease = client.acquire(key, SLACK);
                leases.add(lease);
                RedisKeys names = keys(key);
                RedisServer master = cluster.masterOf(names.lock());
                masters.add(master.port());
                RedisServer replica = cluster.replicaOf(master);
                // WAIT returned on the master that took the write, so its replica has the hold and the token.
                assertThat(RedisClusterFixture.readOnReplica(replica, "EXISTS", names.lock()))
                        .as("hold of '%s' on the replica of its master %s", key, master).isEqualTo(":1");
                assertThat(RedisClusterFixture.readOnReplica(replica, "GET", names.fence()))
                        .as("token of '%s' on the replica", key).isEqualTo(Long.toString(lease.fencingToken()));
            }
            assertThat(masters).as("keys spread over the masters").hasSizeGreaterThan(1);
            Thread.sleep(2500);
            for (LockLease lease : leases) {
                assertThat(lease.isValid()).as("'%s' renewed through WAIT", lease.key()).isTrue();
            }
            for (LockLease lease : leases) {
                lease.close();
                assertThat(cluster.onOwner("EXISTS", keys(lease.key()).lock())).as("released %s", lease.key())
                        .isEqualTo(":0");
            }
        }
    }

    @Test
    void grantOnAMasterWhoseReplicaIsPausedIsWithdrawnWhileOtherMastersGrant() throws Exception {
        RedisServer lagging = cluster.masters().get(0);
        RedisServer healthy = cluster.masters().get(1);
        String key = keyOn(lagging, "lagging-");
        String other = keyOn(healthy, "healthy-");
        RedisServer replica = cluster.replicaOf(lagging);
        try (LockClient client = client(1, Duration.ofMillis(500))) {
            client.acquire(other + "-warm-up", SLACK).close(); // connections open before the clock starts
            replica.pause();
            try {
                long start = System.nanoTime();
                assertThatThrownBy(() -> client.tryAcquire(key)).isInstanceOf(LockBackendException.class)
                        .hasMessageContaining(key).hasMessageContaining("0 of the required 1 replica")
                        .hasMessageContaining("withdrawn");
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(took).as("failed within about the replica timeout").isLessThan(SLACK);
                assertThat(client.heldLocks()).isEmpty();
                RedisLockBackendTest.await(SLACK, () -> {
                    try {
                        return lagging.command("EXISTS", keys(key).lock()).equals(":0");
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                }, "the withdrawn grant to be deleted from its master");
                try (LockLease lease = client.acquire(other, SLACK)) {
                    assertThat(lease.isValid()).isTrue();
                    assertThat(RedisClusterFixture.readOnReplica(cluster.replicaOf(healthy), "EXISTS",
                            keys(other).lock())).as("on the healthy master's replica").isEqualTo(":1");
                }
            } finally {
                replica.resume();
            }
            awaitReplicaUp(replica);
            try (LockLease lease = client.acquire(key, SLACK)) {
                assertThat(lease.isValid()).as("granted once the replica is back").isTrue();
            }
        }
    }

    @Test
    void watchdogRenewsHoldsInThreeSlotsOnThreeMastersForTwoLeases() throws Exception {
        List<LockLease> leases = new ArrayList<>();
        try (LockClient client = client(1, Duration.ofSeconds(2))) {
            for (RedisServer master : cluster.masters()) {
                leases.add(client.acquire(keyOn(master, "renewed-"), SLACK));
            }
            Thread.sleep(2500);
            for (LockLease lease : leases) {
                assertThat(lease.isValid()).as("'%s' renewed", lease.key()).isTrue();
                RedisServer master = cluster.masterOf(keys(lease.key()).lock());
                assertThat(RedisClusterFixture.readOnReplica(cluster.replicaOf(master), "EXISTS",
                        keys(lease.key()).lock())).isEqualTo(":1");
            }
            leases.forEach(LockLease::close);
        }
    }

    /**
     * One batch of renewals over three masters, one of whose replicas is paused: each master's
     * {@code WAIT} counts only its own replicas, so the batch is replicated only if every master's
     * {@code WAIT} reached the count. Adding the answers up (2 of 3 masters answer 1) would count
     * the renewal on the lagging master as replicated.
     */
    @Test
    void renewAllIsNotCountedWhenOneMastersReplicaLags() throws Exception {
        RedisServer lagging = cluster.masters().get(2);
        RedisServer replica = cluster.replicaOf(lagging);
        Duration lease = Duration.ofSeconds(30);
        try (LockBackend backend = backend(1, Duration.ofMillis(500))) {
            List<Grant> grants = new ArrayList<>();
            for (RedisServer master : cluster.masters()) {
                String key = keyOn(master, "batch-");
                grants.add(backend.tryAcquire(new LockRequest(key, "owner-" + master.port(), lease, false))
                        .grant().orElseThrow());
            }
            assertThat(backend.renewAll(grants, lease).gone()).as("all replicated").isEmpty();
            replica.pause();
            try {
                assertThatThrownBy(() -> backend.renewAll(grants, lease)).isInstanceOf(LockBackendException.class)
                        .hasMessageContaining("0 of the required 1 replica")
                        .hasMessageContaining("not counted as renewed");
            } finally {
                replica.resume();
            }
            awaitReplicaUp(replica);
            for (Grant grant : grants) {
                assertThat(backend.release(grant)).isTrue();
            }
        }
    }

    static void awaitReplicaUp(RedisServer replica) throws InterruptedException {
        RedisLockBackendTest.await(Duration.ofSeconds(30), () -> {
            try {
                return RedisCli.run(replica.port(), "INFO", "replication").contains("master_link_status:up");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }, "the resumed replica to be linked to its master again");
    }
}
