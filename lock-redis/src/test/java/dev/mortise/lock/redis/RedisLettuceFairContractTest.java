package dev.mortise.lock.redis;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.server.FreePorts;

import java.time.Duration;

/** The whole contract in fair mode, and fair mode's own tests, through the Lettuce driver. */
class RedisLettuceFairContractTest extends RedisFairContractTest {

    /** The base test runs the deadlock suite's seeded run on the same store and inspection. */
    @Override
    protected boolean deadlockPropertyRun() {
        return false;
    }

    @Override
    protected LockBackend backendAt(String address) {
        return RedisLockBackend.builder().address(address).fair(true).driver(RedisDriver.LETTUCE).build();
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) {
        return RedisLockBackend.builder().address("redis://127.0.0.1:" + FreePorts.next()).fair(true)
                .driver(RedisDriver.LETTUCE).operationTimeout(operationTimeout).build();
    }
}
