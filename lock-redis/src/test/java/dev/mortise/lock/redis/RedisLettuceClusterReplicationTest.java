package dev.mortise.lock.redis;

/**
 * waitForReplicas on a Redis Cluster through the Lettuce driver: each node's scripts and its
 * {@code WAIT} go out on that node's own connection.
 */
class RedisLettuceClusterReplicationTest extends RedisClusterReplicationTest {

    @Override
    RedisLockBackendBuilder builder() {
        return RedisLockBackend.builder().driver(RedisDriver.LETTUCE);
    }

    /** The master's own connection does not follow MOVED: the batch fails and the topology is refreshed. */
    @Override
    boolean redirectedWritesAreNeverCountedByTheOldMaster() {
        return true;
    }
}
