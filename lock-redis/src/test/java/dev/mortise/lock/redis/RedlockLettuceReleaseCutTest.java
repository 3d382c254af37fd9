package dev.mortise.lock.redis;

/** Redlock's release cut off on one node of three, through the Lettuce driver, which resends it there. */
class RedlockLettuceReleaseCutTest extends RedlockReleaseCutTest {

    @Override
    RedlockBackendBuilder builder() {
        return RedlockBackend.builder().driver(RedisDriver.LETTUCE);
    }

    @Override
    boolean resends() {
        return true;
    }
}
