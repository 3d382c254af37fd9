package dev.mortise.lock.redis.internal.redlock;

import dev.mortise.lock.redis.internal.RedisKeys;

import java.time.Duration;

/**
 * What a Redlock grant needs to renew and release its hold: the key names (the same on
 * every node), the owner value stored on the nodes, which is the request's owner plus
 * an attempt number, so that the clean-up of a failed attempt can never delete what a
 * later attempt of the same request took, the lease the attempt asked for, which bounds
 * how long a node that had not answered it may still take it (see {@code Deployment.horizon}),
 * and whether the hold is shared: the owner's field in {@link RedisKeys#readers()} on each
 * node rather than the lock key.
 */
record RedlockHold(RedisKeys keys, String serverOwner, Duration lease, boolean shared) {

    /** The key this hold lives in on each node: the readers hash when shared, else the lock key. */
    String holdKey() {
        return shared ? keys.readers() : keys.lock();
    }
}
