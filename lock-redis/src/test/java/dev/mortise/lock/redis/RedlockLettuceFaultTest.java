package dev.mortise.lock.redis;

/** Redlock's fault tests (killed, paused and restarted nodes) through the Lettuce driver. */
class RedlockLettuceFaultTest extends RedlockFaultTest {

    @Override
    RedlockBackendBuilder builder() {
        return RedlockBackend.builder().driver(RedisDriver.LETTUCE);
    }
}
