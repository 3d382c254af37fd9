package dev.mortise.lock.redis.internal;

import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.List;

/**
 * The fair family: waiters queue on the server and release hands the lock straight to the first
 * live waiter inside the release script, so a hand-off costs one push instead of push + retry.
 * Readers and writers queue in one order; see {@code fair-queue.lua}, the queue helpers both scripts
 * ({@code fair-acquire.lua}, {@code fair-release.lua}) are sent with after the prelude. Every script
 * call of this family takes the same KEYS: lock, fence, queue, waiters, the owner's cancelled marker,
 * readers. Thread-safe.
 */
public final class FairCommands {

    /** {@code fair-acquire.lua}: {1, token} granted, else {0, ms, 0, fence counter}, {0, -1} cancelled. */
    public static final LuaScript ACQUIRE = LuaFiles.withPrelude("fair-acquire", "fair-queue");
    /** {@code fair-release.lua}: release, leave or cancel, then hand on; 1 if the owner held the lock or a share. */
    static final LuaScript RELEASE = LuaFiles.withPrelude("fair-release", "fair-queue");

    /** Modes of {@link #RELEASE}: release a hold, leave the queue, cancel an attempt. */
    private static final String RELEASE_MODE = "0";
    private static final String LEAVE = "1";
    private static final String CANCEL = "2";

    private final Deployment deployment;

    FairCommands(Deployment deployment) {
        this.deployment = deployment;
    }

    /**
     * One attempt of either mode; with {@code enqueue}, a busy attempt also joins (or refreshes its
     * place in) the queue for {@code waiterTtl}.
     */
    ScriptCall acquire(RedisKeys keys, LockRequest request, boolean enqueue, Duration waiterTtl) {
        return ScriptCall.of(ACQUIRE, ScriptReturn.LIST, keys(keys, request.owner()),
                request.owner(), deployment.leaseText(request.lease()), enqueue ? "1" : "0",
                MillisText.millis(waiterTtl), deployment.clock(), request.shared() ? "S" : "X");
    }

    /** The owner-checked release of a hold of either mode, handing the lock on to the queue. */
    ScriptCall release(RedisKeys keys, String owner) {
        return releaseCall(keys, owner, RELEASE_MODE, "1");
    }

    /** A waiter gives up: leaves the queue, and passes on a lock handed to it meanwhile. */
    ScriptCall leave(RedisKeys keys, String owner) {
        return releaseCall(keys, owner, LEAVE, "1");
    }

    /** As {@link #leave}, and sets the owner's cancelled marker for {@code markerTtl} ms. */
    ScriptCall cancel(RedisKeys keys, String owner, String markerTtl) {
        return releaseCall(keys, owner, CANCEL, markerTtl);
    }

    private ScriptCall releaseCall(RedisKeys keys, String owner, String mode, String markerTtl) {
        return ScriptCall.of(RELEASE, ScriptReturn.LONG, keys(keys, owner), owner, keys.channel(), mode, markerTtl,
                deployment.clock());
    }

    /** KEYS of the fair scripts: lock, fence, queue, waiters, the owner's cancelled marker, readers. */
    private static List<Object> keys(RedisKeys keys, String owner) {
        return List.of(keys.lock(), keys.fence(), keys.queue(), keys.waiters(), keys.cancelled(owner),
                keys.readers());
    }
}
