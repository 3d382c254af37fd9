/**
 * The Lettuce driver: <b>internal</b>, no compatibility promise. A
 * {@link dev.mortise.lock.redis.internal.RedisTransport} over one multiplexed Lettuce command
 * connection and one pub/sub connection ({@link dev.mortise.lock.redis.internal.lettuce.LettuceTransport}),
 * and the clients the builders make ({@link dev.mortise.lock.redis.internal.lettuce.LettuceClients}).
 * Lettuce is an optional dependency: nothing outside this package and the builders' Lettuce paths
 * loads these classes.
 */
package dev.mortise.lock.redis.internal.lettuce;
