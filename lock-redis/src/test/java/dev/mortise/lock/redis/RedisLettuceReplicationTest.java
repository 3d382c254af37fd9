package dev.mortise.lock.redis;

/** waitForReplicas through the Lettuce driver: the script and WAIT go out on the one shared connection. */
class RedisLettuceReplicationTest extends RedisReplicationTest {

    @Override
    RedisLockBackendBuilder builder() {
        return RedisLockBackend.builder().driver(RedisDriver.LETTUCE);
    }
}
