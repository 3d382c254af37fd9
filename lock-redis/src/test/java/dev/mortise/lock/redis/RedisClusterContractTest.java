package dev.mortise.lock.redis;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.LockBackendContractTest;
import dev.mortise.lock.tck.server.FreePorts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole contract against a real three-master Redis Cluster on loopback: keys spread
 * over the masters, scripts run on the owner of each lock's slot, renewals are batched
 * per slot and pipelined per node, and release messages cross the cluster bus.
 */
class RedisClusterContractTest extends LockBackendContractTest {

    private static RedisClusterFixture cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = new RedisClusterFixture(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.builder().clusterNodes(cluster.addresses()).build();
    }

    @Override
    protected void breakHold(LockLease lease) throws Exception {
        RedisKeys keys = RedisKeys.of("mortise", lease.key());
        String reply = cluster.onOwner("DEL", lease.mode() == LockMode.SHARED ? keys.readers() : keys.lock());
        if (!reply.equals(":1")) {
            throw new AssertionError("the hold was not on its node: " + reply);
        }
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return RedisLockBackend.builder().clusterNodes("redis://127.0.0.1:" + FreePorts.next())
                .operationTimeout(operationTimeout).build();
    }

    @Override
    protected int residueOnServer(String key) throws Exception {
        RedisKeys keys = RedisKeys.of("mortise", key);
        return Integer.parseInt(cluster.onOwner("EXISTS", keys.lock(), keys.readers(), keys.writers()).substring(1));
    }

    // ---- beyond the shared contract ---------------------------------------------------------

    @Test
    void lockAndCounterShareTheSlotOfTheEncodedKeyWhateverBracesTheUserKeyHas() throws Exception {
        for (String userKey : List.of("a", "{a}", "x{a}y", "{}", "{{a}}", "日本{語}", "tab\there", "}{")) {
            RedisKeys names = RedisKeys.of("mortise", userKey);
            int slot = cluster.slotOf(names.lock());
            assertThat(cluster.slotOf(names.fence())).as("counter of '%s'", userKey).isEqualTo(slot);
            assertThat(cluster.slotOf(names.readers())).as("readers of '%s'", userKey).isEqualTo(slot);
            assertThat(cluster.slotOf(names.writers())).as("waiting writers of '%s'", userKey).isEqualTo(slot);
            assertThat(names.slot()).as("our CRC16 for '%s'", userKey).isEqualTo(slot);
        }
        assertThat(RedisKeys.of("mortise", "{a}").slot()).as("user braces do not pick the slot")
                .isEqualTo(cluster.slotOf("%7Ba%7D")).isNotEqualTo(cluster.slotOf("a"));
    }

    @Test
    void renewAllOverManySlotsReportsExactlyTheBrokenHolds() throws Exception {
        try (LockBackend backend = newBackend()) {
            List<Grant> grants = new ArrayList<>();
            Set<Integer> owners = new HashSet<>();
            for (int i = 0; i < 24; i++) {
                String key = key("many-" + i);
                grants.add(backend.tryAcquire(new LockRequest(key, "owner-" + i, Duration.ofSeconds(30), true)).grant()
                        .orElseThrow());
                owners.add(cluster.ownerOf(RedisKeys.of("mortise", key).lock()));
            }
            assertThat(owners).as("holds spread over the masters").hasSizeGreaterThan(1);
            Set<Grant> broken = Set.of(grants.get(3), grants.get(11), grants.get(20));
            for (Grant grant : broken) {
                assertThat(cluster.onOwner("DEL", RedisKeys.of("mortise", grant.key()).lock())).isEqualTo(":1");
            }
            assertThat(backend.renewAll(grants, Duration.ofSeconds(30))).containsExactlyInAnyOrderElementsOf(broken);
            for (Grant grant : grants) {
                assertThat(backend.release(grant)).isEqualTo(!broken.contains(grant));
            }
        }
    }
}
