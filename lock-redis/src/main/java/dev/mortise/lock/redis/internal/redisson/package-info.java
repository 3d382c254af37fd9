/**
 * The Redisson driver: <b>internal</b>, no compatibility promise. A
 * {@link dev.mortise.lock.redis.internal.RedisTransport} over a {@code RedissonClient}
 * ({@link dev.mortise.lock.redis.internal.redisson.RedissonTransport}), which connects the client on a
 * thread of its own ({@code RedissonConnector}: no caller's interrupt reaches another caller through
 * Redisson's shared first connect), and the configuration of the clients the builders make
 * ({@link dev.mortise.lock.redis.internal.redisson.RedissonClients}).
 * Redisson may be left off the class path by Lettuce users: nothing outside this package and the
 * builders' Redisson paths loads these classes.
 */
package dev.mortise.lock.redis.internal.redisson;
