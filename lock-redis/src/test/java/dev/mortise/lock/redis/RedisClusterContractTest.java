package dev.mortise.lock.redis;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.LockBackendContractTest;
import dev.mortise.lock.tck.server.FreePorts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

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
        String reply = cluster.onOwner("DEL", RedisKeys.of("mortise", lease.key()).lock());
        if (!reply.equals(":1")) {
            throw new AssertionError("the lock key was not on its node: " + reply);
        }
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return RedisLockBackend.builder().clusterNodes("redis://127.0.0.1:" + FreePorts.next())
                .operationTimeout(operationTimeout).build();
    }

    @Override
    protected int residueOnServer(String key) throws Exception {
        return Integer.parseInt(cluster.onOwner("EXISTS", RedisKeys.of("mortise", key).lock()).substring(1));
    }
}
