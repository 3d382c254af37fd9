package dev.mortise.lock.redis;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.LockBackendContractSuite;
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
class RedisClusterContractTest extends LockBackendContractSuite {

    static RedisClusterFixture cluster;

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

    /**
     * A backend whose connection to each node goes to the proxy in front of it: the nodes announce
     * their own addresses ({@code CLUSTER SLOTS}), so the client maps each announced address to the
     * node's proxy (Redisson's NAT mapper here).
     */
    protected LockBackend backendThrough(java.util.Map<Integer, Integer> proxyPortByNodePort) {
        java.util.Map<String, String> hosts = new java.util.HashMap<>();
        proxyPortByNodePort.forEach((node, proxy) -> hosts.put("127.0.0.1:" + node, "127.0.0.1:" + proxy));
        org.redisson.config.HostPortNatMapper mapper = new org.redisson.config.HostPortNatMapper();
        mapper.setHostsPortMap(hosts);
        return RedisLockBackend.builder().clusterNodes(cluster.addresses())
                .configure(config -> config.useClusterServers().setNatMapper(mapper)).build();
    }

    /** Faults below the backend ({@link WireFaultContract}): A through a proxy in front of each node, B direct. */
    @org.junit.jupiter.api.Nested
    class WireFaults extends dev.mortise.lock.tck.WireFaultContract {
        WireFaults() {
            super(RedisClusterContractTest.this);
        }

        @Override
        protected List<Integer> wirePorts() {
            return cluster.ports();
        }

        @Override
        protected LockBackend backendThrough(java.util.Map<Integer, Integer> proxyPortByServerPort) {
            return RedisClusterContractTest.this.backendThrough(proxyPortByServerPort);
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

    /** The wait-record strings of the holder ids, each on the master of its own slot ({@code EXISTS}). */
    @Override
    protected int waitRecordsOnServer(java.util.Collection<String> holderIds) throws Exception {
        int count = 0;
        for (String holderId : holderIds) {
            count += Integer.parseInt(cluster.onOwner("EXISTS", RedisKeys.waitRecord("mortise", holderId)).substring(1));
        }
        return count;
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
            assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).containsExactlyInAnyOrderElementsOf(broken);
            for (Grant grant : grants) {
                assertThat(backend.release(grant)).isEqualTo(!broken.contains(grant));
            }
        }
    }
    @Test
    void waitRecordsGoOneScriptCallPerSlotEachToItsMaster() throws Exception {
        try (LockBackend backend = newBackend()) {
            dev.mortise.lock.spi.WaitRecords records = backend.waitRecords().orElseThrow();
            List<String> ids = new ArrayList<>();
            Set<Integer> slots = new HashSet<>();
            for (int i = 0; i < 12; i++) {
                ids.add(String.format("%016x", java.util.concurrent.ThreadLocalRandom.current().nextLong()));
                slots.add(cluster.slotOf(RedisKeys.waitRecord("mortise", ids.get(i))));
            }
            // every script cached on every node it runs on (a first EVALSHA on a node costs a reload)
            records.publish(ids, "warm", "up", Duration.ofSeconds(30));
            records.read(ids);
            records.remove(ids, "warm");

            long before = cluster.scriptCalls();
            records.publish(ids, "n1", "waits", Duration.ofSeconds(30));
            assertThat(cluster.scriptCalls() - before).as("one publish per slot of " + slots).isEqualTo(slots.size());
            Set<Integer> owners = new HashSet<>();
            for (String id : ids) {
                String name = RedisKeys.waitRecord("mortise", id);
                owners.add(cluster.ownerOf(name));
                assertThat(cluster.onOwner("GET", name)).as("on the master of its slot").isEqualTo("n1:waits");
            }
            assertThat(owners).as("records spread over the masters").hasSizeGreaterThan(1);
            before = cluster.scriptCalls();
            assertThat(records.read(ids)).hasSize(12);
            records.remove(ids, "n1");
            assertThat(cluster.scriptCalls() - before).as("one read and one removal per slot")
                    .isEqualTo(2L * slots.size());
            assertThat(waitRecordsOnServer(ids)).isZero();
        }
    }

    // ---- multi-key requests: one script per slot -------------------------------------------

    /** {@code n} keys (with {@code stem}) whose names all fall in one cluster slot. */
    private List<String> keysInOneSlot(String stem, int n) {
        java.util.Map<Integer, List<String>> bySlot = new java.util.HashMap<>();
        for (int i = 0; ; i++) {
            String candidate = key(stem + i);
            List<String> same = bySlot.computeIfAbsent(RedisKeys.of("mortise", candidate).slot(), s -> new ArrayList<>());
            same.add(candidate);
            if (same.size() == n) {
                return same;
            }
        }
    }

    @Test
    void acquireAllSendsOneScriptPerSlotAndOneForKeysOfOneSlot() throws Exception {
        try (dev.mortise.lock.LockClient locks = dev.mortise.lock.LockClient.builder(newBackend())
                .defaultLease(Duration.ofSeconds(30)).build()) {
            List<String> spread = new ArrayList<>();
            Set<Integer> slots = new HashSet<>();
            for (int i = 0; i < 6; i++) {
                spread.add(key("spread-" + i));
                slots.add(RedisKeys.of("mortise", spread.get(i)).slot());
            }
            List<String> together = keysInOneSlot("together-", 3);
            dev.mortise.lock.MultiLockSpec spreadSpec = dev.mortise.lock.MultiLockSpec.of(spread)
                    .lease(Duration.ofSeconds(30));
            dev.mortise.lock.MultiLockSpec togetherSpec = dev.mortise.lock.MultiLockSpec.of(together)
                    .lease(Duration.ofSeconds(30));
            // every script cached on every node it runs on (a first EVALSHA on a node costs a reload)
            locks.acquireAll(spreadSpec).close();
            locks.acquireAll(togetherSpec).close();

            long before = cluster.scriptCalls();
            try (dev.mortise.lock.MultiLease all = locks.acquireAll(spreadSpec)) {
                assertThat(cluster.scriptCalls() - before).as("one script per slot of " + slots).isEqualTo(slots.size());
                for (String key : spread) {
                    assertThat(residueOnServer(key)).as(key).isEqualTo(1);
                }
            }
            before = cluster.scriptCalls();
            try (dev.mortise.lock.MultiLease all = locks.acquireAll(togetherSpec)) {
                assertThat(cluster.scriptCalls() - before).as("three keys of one slot").isEqualTo(1);
                assertThat(all.isValid()).isTrue();
            }
        }
    }

    @Test
    void aBusyKeyInALaterSlotReleasesTheEarlierSlotsGrants() throws Exception {
        try (LockBackend backend = newBackend(); LockBackend other = newBackend()) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                keys.add(key("later-" + i));
            }
            java.util.Collections.sort(keys);
            String last = keys.get(keys.size() - 1);
            int lastSlot = RedisKeys.of("mortise", last).slot();
            assertThat(keys).as("more than one slot")
                    .anyMatch(k -> RedisKeys.of("mortise", k).slot() != lastSlot);
            Grant busy = other.tryAcquire(new LockRequest(last, "holder", Duration.ofSeconds(30), false)).grant()
                    .orElseThrow();
            List<LockRequest> requests = new ArrayList<>();
            for (String key : keys) {
                requests.add(new LockRequest(key, "batch-" + key, Duration.ofSeconds(30), false));
            }
            assertThat(backend.tryAcquireAll(requests)).isEmpty();
            for (String key : keys) {
                assertThat(residueOnServer(key)).as("left on the server: " + key).isEqualTo(key.equals(last) ? 1 : 0);
            }
            assertThat(other.release(busy)).as("the busy holder was untouched").isTrue();
            List<Grant> grants = backend.tryAcquireAll(requests);
            assertThat(grants).extracting(Grant::key).containsExactlyElementsOf(keys);
            for (Grant grant : grants) {
                assertThat(backend.release(grant)).isTrue();
            }
        }
    }
}
