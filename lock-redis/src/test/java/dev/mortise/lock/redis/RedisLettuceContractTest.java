package dev.mortise.lock.redis;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.server.FreePorts;

import java.time.Duration;

/** The whole contract against one real redis-server, through the Lettuce driver (a client per backend). */
class RedisLettuceContractTest extends RedisLockBackendContractTest {

    /** The base test runs the deadlock suite's seeded run on the same store and inspection. */
    @Override
    protected boolean deadlockPropertyRun() {
        return false;
    }

    @Override
    protected LockBackend backendAt(String address) {
        return RedisLockBackend.builder().address(address).driver(RedisDriver.LETTUCE).build();
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return RedisLockBackend.builder().address("redis://127.0.0.1:" + FreePorts.next()).driver(RedisDriver.LETTUCE)
                .operationTimeout(operationTimeout).build();
    }
}
