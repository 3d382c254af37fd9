package dev.mortise.lock.redis.internal;

import java.time.Duration;

/**
 * What a Redlock grant needs to renew and release its hold: the key names (the same on
 * every node), the owner value stored on the nodes, which is the request's owner plus
 * an attempt number, so that the clean-up of a failed attempt can never delete what a
 * later attempt of the same request took, and the lease the attempt asked for, which bounds
 * how long a node that had not answered it may still take it (see {@code LockCommands.horizon}).
 */
public record RedlockHold(RedisKeys keys, String serverOwner, Duration lease) {
}
