/**
 * The Redis backends: <b>API</b>, users may depend on everything public here.
 *
 * <p>{@link dev.mortise.lock.redis.RedisLockBackend} locks on one Redis deployment (a single server,
 * a Sentinel group or a Redis Cluster) and {@link dev.mortise.lock.redis.RedlockBackend} over several
 * independent masters; each is built by its builder ({@link dev.mortise.lock.redis.RedisLockBackendBuilder},
 * {@link dev.mortise.lock.redis.RedlockBackendBuilder}) over the client library chosen with
 * {@link dev.mortise.lock.redis.RedisDriver}. What each deployment guarantees is in {@code docs/redis.md}.
 *
 * <p>Everything below {@code dev.mortise.lock.redis.internal} is the implementation, with no
 * compatibility promise.
 */
package dev.mortise.lock.redis;
