package dev.mortise.lock.redis.internal.redlock;

import dev.mortise.lock.redis.internal.CleanUps;
import dev.mortise.lock.redis.internal.Deployment;
import dev.mortise.lock.redis.internal.ExclusiveCommands;
import dev.mortise.lock.redis.internal.HoldCommands;
import dev.mortise.lock.redis.internal.LockCommands;
import dev.mortise.lock.redis.internal.LuaFiles;
import dev.mortise.lock.redis.internal.LuaScript;
import dev.mortise.lock.redis.internal.MillisText;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.redis.internal.ScriptCall;
import dev.mortise.lock.redis.internal.ScriptReturn;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The calls Redlock's shared (read) mode and waiting writers send to one node, on top of that
 * node's {@link LockCommands}: the single-server scripts (the shared acquire and release, the
 * writer's {@code unmark.lua}, {@code renew.lua} with modes) plus two of Redlock's own: the second
 * round of a shared grant ({@link #RAISE_FENCE_SHARED}) and a waiting writer's marker set apart from
 * its attempt ({@link #MARK}). Redlock owners are per attempt, so a writer's marker carries an id of
 * its own that stays the same over all attempts of one wait. Stateless; thread-safe.
 */
final class RedlockCalls {

    /** {@code raise-fence-shared.lua}: raises the counter; 1 if the owner's share is here and live. */
    static final LuaScript RAISE_FENCE_SHARED = LuaFiles.withPrelude("raise-fence-shared");
    /** {@code mark.lua}: sets or refreshes a waiting writer's marker; 1. */
    static final LuaScript MARK = LuaFiles.withPrelude("mark");

    private RedlockCalls() {
    }

    /** Replies {1, token} if {@code owner} now holds a share, {0, ms} if busy, {0, -1} if cancelled. */
    static CompletableFuture<List<Object>> acquireShared(LockCommands node, RedisKeys keys, String owner,
                                                         Duration lease) {
        return node.deployment().runner().callAsync(node.shared().acquire(keys, owner, lease));
    }

    /** Round two of a shared grant: 1 if the owner's share is still here after the counter was raised. */
    static CompletableFuture<Long> raiseFenceShared(LockCommands node, RedisKeys keys, String owner, long token) {
        return node.deployment().runner().callAsync(ScriptCall.of(RAISE_FENCE_SHARED, ScriptReturn.LONG,
                List.of(keys.readers(), keys.fence()), owner, Long.toString(token)));
    }

    /**
     * Owner-checked release of a share on a node whose acquire was answered; retried in the background
     * until confirmed or the horizon of {@code lease} (see {@link HoldCommands#releaseAsync}).
     */
    static CompletableFuture<Long> releaseShared(LockCommands node, RedisKeys keys, String owner, Duration lease) {
        Deployment deployment = node.deployment();
        return CleanUps.send(deployment.runner(), node.shared().release(keys, owner),
                CleanUps.deadlineAfter(deployment.horizon(lease)));
    }

    /** Sets or refreshes a waiting writer's marker {@code marker} for at most {@code waitLeft}. */
    static CompletableFuture<Long> mark(LockCommands node, RedisKeys keys, String marker, Duration waitLeft) {
        Deployment deployment = node.deployment();
        return deployment.runner().callAsync(ScriptCall.of(MARK, ScriptReturn.LONG,
                List.of(keys.lock(), keys.readers(), keys.writers()), marker,
                MillisText.millis(deployment.waiterTtl()), MillisText.millis(waitLeft)));
    }

    /**
     * Withdraws a waiting writer's marker ({@code unmark.lua} without hand-off offers: Redlock hands
     * nothing over); retried in the background until confirmed or the marker has certainly lapsed.
     */
    static CompletableFuture<Long> unmark(LockCommands node, RedisKeys keys, String marker, Duration lease) {
        Deployment deployment = node.deployment();
        return CleanUps.send(deployment.runner(), ScriptCall.of(ExclusiveCommands.UNMARK, ScriptReturn.LONG,
                List.of(keys.lock(), keys.readers(), keys.writers()), marker, keys.channel()),
                CleanUps.deadlineAfter(deployment.waiterTtl().plus(deployment.horizon(lease))));
    }

    /**
     * Renews holds of any mode on one node: per hold, the lock key (exclusive) or the readers key
     * (shared), its owner, and {@code modes} with one {@code S} or {@code X} per hold. Replies one flag
     * (1 renewed, 0 gone) per hold.
     */
    static CompletableFuture<List<Object>> renew(LockCommands node, List<String> holdKeys, List<String> owners,
                                                 String modes, Duration lease) {
        return node.deployment().runner().callAsync(HoldCommands.renewCall(holdKeys, owners, modes, lease));
    }
}
