package dev.mortise.lock.redis;

/** Sentinel through the Lettuce driver: the master is found through a Sentinel RedisURI, and a real failover is followed. */
class RedisLettuceSentinelTest extends RedisSentinelTest {

    @Override
    RedisLockBackendBuilder builder() {
        return RedisLockBackend.builder().driver(RedisDriver.LETTUCE);
    }
}
