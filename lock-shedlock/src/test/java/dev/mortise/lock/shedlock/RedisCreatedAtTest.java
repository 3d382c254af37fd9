package dev.mortise.lock.shedlock;

import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.spi.LockBackend;

/** {@link CreatedAtTest} on Redis: the server lease asked for is what is left of lockAtMostFor. */
class RedisCreatedAtTest extends CreatedAtTest {

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.builder().address(Servers.redis().address()).build();
    }
}
