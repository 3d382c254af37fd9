package dev.mortise.lock.redis;

/**
 * The Redis client library a {@link RedisLockBackend} talks through. Both send the same scripts
 * to the same keys and pass the same contract suite; they differ in what they cost per call and
 * in what they let you configure. See {@code docs/redis.md}, "Choosing a client".
 */
public enum RedisDriver {

    /**
     * Redisson (the default): a connection pool per node, Redisson's own retries, and any Redisson
     * {@code Config} through {@link RedisLockBackendBuilder#config} or {@link RedisLockBackendBuilder#configure}.
     */
    REDISSON,

    /**
     * Lettuce ({@code io.lettuce:lettuce-core} on the classpath): one multiplexed connection for
     * every command plus one for pub/sub, no pool, no retries of its own beyond reconnecting.
     * Single server, Sentinel and Cluster, {@code waitForReplicas} on all three (on a Cluster each
     * master's writes and their {@code WAIT} go out on that master's own connection).
     */
    LETTUCE
}
