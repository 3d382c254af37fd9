package dev.mortise.lock.integration;

import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.spi.LockBackend;

/** The registry and Spring Integration's components on Redis, against a real redis-server. */
class RedisLockRegistryTest extends LockRegistrySuite {

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.builder().address(Servers.redis().address()).build();
    }
}
