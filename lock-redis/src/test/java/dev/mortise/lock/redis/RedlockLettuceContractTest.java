package dev.mortise.lock.redis;

/** The whole contract on five independent servers, the read-write contract included, through the Lettuce driver. */
class RedlockLettuceContractTest extends RedlockContractTest {

    /** The base test runs the deadlock suite's seeded run on the same store and inspection. */
    @Override
    protected boolean deadlockPropertyRun() {
        return false;
    }

    @Override
    RedlockBackendBuilder builder() {
        return RedlockBackend.builder().driver(RedisDriver.LETTUCE);
    }
}
