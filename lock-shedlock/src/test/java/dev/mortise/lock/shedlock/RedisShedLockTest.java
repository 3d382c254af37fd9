package dev.mortise.lock.shedlock;

import dev.mortise.lock.redis.RedisLockBackend;
import dev.mortise.lock.spi.LockBackend;

/** ShedLock's suite on Redis, against a real redis-server. */
class RedisShedLockTest extends ShedLockSuite {

    @Override
    protected LockBackend newBackend() {
        return RedisLockBackend.builder().address(Servers.redis().address()).build();
    }
}
