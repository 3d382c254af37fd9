package dev.mortise.lock.redis;

/** TLS through the Lettuce driver: rediss:// and the trust store become Lettuce's SslOptions. */
class RedisLettuceTlsTest extends RedisTlsTest {

    @Override
    RedisLockBackendBuilder builder() {
        return RedisLockBackend.builder().driver(RedisDriver.LETTUCE);
    }
}
