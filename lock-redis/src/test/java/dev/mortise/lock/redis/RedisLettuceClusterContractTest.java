package dev.mortise.lock.redis;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.server.FreePorts;

import java.time.Duration;

/**
 * The whole contract, and the Cluster's own tests (one script per slot, renewals per slot), on a
 * real three-master Redis Cluster through the Lettuce driver: Lettuce routes each script by the
 * slot of its first key.
 */
class RedisLettuceClusterContractTest extends RedisClusterContractTest {

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.builder().clusterNodes(cluster.addresses()).driver(RedisDriver.LETTUCE).build();
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return RedisLockBackend.builder().clusterNodes("redis://127.0.0.1:" + FreePorts.next())
                .driver(RedisDriver.LETTUCE).operationTimeout(operationTimeout).build();
    }
}
