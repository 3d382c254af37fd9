package dev.mortise.lock.redis.internal;

/**
 * What a Redlock grant needs to renew and release its hold: the key names (the same on
 * every node) and the owner value stored on the nodes, which is the request's owner plus
 * an attempt number, so that the clean-up of a failed attempt can never delete what a
 * later attempt of the same request took.
 */
public record RedlockHold(RedisKeys keys, String serverOwner) {
}
