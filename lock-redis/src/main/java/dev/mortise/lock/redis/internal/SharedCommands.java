package dev.mortise.lock.redis.internal;

import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.List;

/**
 * The shared and permit family: shares of a read-write lock and permit holds of a native semaphore,
 * both fields of the key's readers hash ({@code prelude.lua} keeps it), and a semaphore's stored
 * count. Each script is a file beside the others ({@code acquire-shared.lua},
 * {@code acquire-permits.lua}, {@code release-shared.lua}, {@code set-permits.lua}) whose header
 * states its KEYS, ARGV and reply. Thread-safe.
 */
public final class SharedCommands {

    /** {@code acquire-shared.lua}: {1, token} granted, {0, ms} busy, {0, -1} cancelled. */
    static final LuaScript ACQUIRE_SHARED = LuaFiles.withPrelude("acquire-shared");
    /** {@code acquire-permits.lua}: {1, token} granted, {0, ms or -1} busy, {2, stored count} mismatch. */
    static final LuaScript ACQUIRE_PERMITS = LuaFiles.withPrelude("acquire-permits");
    /** {@code release-shared.lua}: removes the owner's share; 1 if its lease still ran. */
    static final LuaScript RELEASE_SHARED = LuaFiles.withPrelude("release-shared");
    /** {@code set-permits.lua}: a semaphore's stored count while permits are held; the live holds. */
    static final LuaScript SET_PERMITS = LuaFiles.withPrelude("set-permits");

    private final Deployment deployment;

    SharedCommands(Deployment deployment) {
        this.deployment = deployment;
    }

    /** A shared attempt of {@code owner}. */
    public ScriptCall acquire(RedisKeys keys, String owner, Duration lease) {
        return ScriptCall.of(ACQUIRE_SHARED, ScriptReturn.LIST,
                List.of(keys.lock(), keys.fenceName(), keys.cancelledName(owner), keys.readersName(),
                        keys.writersName()), owner,
                deployment.leaseText(lease), deployment.clock());
    }

    /**
     * A permit attempt; {@code follow}: a retry of a waiting request, which follows the stored count
     * (so a {@code setPermits} raise lets it in) rather than insisting on its own.
     */
    ScriptCall acquirePermits(RedisKeys keys, LockRequest request, boolean follow) {
        return ScriptCall.of(ACQUIRE_PERMITS, ScriptReturn.LIST,
                List.of(keys.lock(), keys.fence(), keys.cancelled(request.owner()), keys.readers()),
                request.owner(), deployment.leaseText(request.lease()), deployment.clock(),
                Integer.toString(request.permits().count()), Integer.toString(request.permits().limit()),
                follow ? "1" : "0");
    }

    /** The owner-checked release of a share (or permit hold) that tells waiters when it frees room. */
    public ScriptCall release(RedisKeys keys, String owner) {
        return ScriptCall.of(RELEASE_SHARED, ScriptReturn.LONG, List.of(keys.readers()), owner, keys.channel());
    }

    /**
     * The stored count of the semaphore key {@code key}, while permits are held, and a wake-up of its
     * waiters. One script call.
     */
    public void setPermits(String key, int limit) {
        RedisKeys keys = deployment.keys(key);
        ScriptRunner runner = deployment.runner();
        runner.ensureReady(key);
        runner.call(ScriptCall.of(SET_PERMITS, ScriptReturn.LONG, List.of(keys.readers()),
                Integer.toString(limit), keys.channel()), key, "setPermits");
    }
}
