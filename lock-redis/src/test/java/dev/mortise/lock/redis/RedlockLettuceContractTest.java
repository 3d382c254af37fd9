package dev.mortise.lock.redis;

/** The whole contract on five independent servers, the read-write contract included, through the Lettuce driver. */
class RedlockLettuceContractTest extends RedlockContractTest {

    @Override
    RedlockBackendBuilder builder() {
        return RedlockBackend.builder().driver(RedisDriver.LETTUCE);
    }
}
