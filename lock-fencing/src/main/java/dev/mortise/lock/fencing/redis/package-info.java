/**
 * Fenced writes on Redis (API): {@link dev.mortise.lock.fencing.redis.RedisFenceScripts}, Lua
 * scripts that refuse a {@code SET}/{@code HSET} carrying a fencing token older than the last one
 * seen for its key, and {@link dev.mortise.lock.fencing.redis.RedissonFencedWrites}, which runs
 * them through a Redisson client. Users may depend on every public type here.
 */
package dev.mortise.lock.fencing.redis;
