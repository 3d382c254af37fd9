package dev.mortise.lock.redis.internal;

import dev.mortise.lock.spi.Deadlines;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The exclusive family: the acquire of an exclusive hold (with a waiting writer's marker and
 * hand-off offer), its releases (plain, and handing over to a waiting writer), a waiting writer's
 * withdrawal, and Redlock's fence round. Each script is a file beside the others
 * ({@code acquire.lua}, {@code release.lua}, {@code release-handing.lua}, {@code unmark.lua},
 * {@code raise-fence.lua}) whose header states its KEYS, ARGV and reply. Thread-safe.
 */
public final class ExclusiveCommands {

    /** {@code acquire.lua}: {1, token} granted, else {0, PTTL, readers hold, fence counter}, {0, -1} cancelled. */
    public static final LuaScript ACQUIRE = LuaFiles.withPrelude("acquire");
    /** {@code release.lua}: the owner-checked delete; 1 if the lock was the owner's. */
    public static final LuaScript RELEASE = LuaFiles.alone("release");
    /** {@code release-handing.lua}: as {@link #RELEASE}, then hands the lock to a waiting writer whose offer is fresh. */
    static final LuaScript RELEASE_HANDING = LuaFiles.withPrelude("release-handing");
    /** {@code unmark.lua}: a waiting writer gives up its marker, offer, and a lock handed to it meanwhile. */
    public static final LuaScript UNMARK = LuaFiles.withPrelude("unmark");
    /** {@code raise-fence.lua}: Redlock's second round; 1 if the owner still holds the lock here. */
    static final LuaScript RAISE_FENCE = LuaFiles.alone("raise-fence");

    private final Deployment deployment;

    ExclusiveCommands(Deployment deployment) {
        this.deployment = deployment;
    }

    /**
     * An exclusive attempt; {@code markTtl} above zero leaves a "writer waiting" marker if refused and,
     * where releases hand over ({@link Deployment#handsOver()}), an offer to be handed the lock.
     * {@code deadline} ({@link System#nanoTime()}) bounds the marker.
     */
    ScriptCall acquire(RedisKeys keys, String owner, Duration lease, Duration markTtl, long deadline) {
        boolean mark = !markTtl.isZero();
        String clock = deployment.clock();
        if (mark && deployment.handsOver()) {
            return ScriptCall.of(ACQUIRE, ScriptReturn.LIST,
                    List.of(keys.lock(), keys.fenceName(), keys.cancelledName(owner), keys.readersName(),
                            keys.writersName(), keys.handOffsName()), owner,
                    deployment.leaseText(lease), clock, deployment.markText(markTtl),
                    MillisText.millisOfNanos(Deadlines.left(deadline)), handOffWindow(lease));
        }
        return ScriptCall.of(ACQUIRE, ScriptReturn.LIST,
                List.of(keys.lock(), keys.fenceName(), keys.cancelledName(owner), keys.readersName(),
                        keys.writersName()), owner,
                deployment.leaseText(lease), clock, mark ? deployment.markText(markTtl) : "0",
                mark ? MillisText.millisOfNanos(Deadlines.left(deadline)) : "0");
    }

    /**
     * How long a waiting writer's hand-off offer stays fresh after its attempt: a third of its lease,
     * at most {@link WaitingAcquisition#HEARTBEAT}. A handed lease counts from that attempt, so at least
     * two thirds of it are left at the hand-off; and a waiter that died right after asking can be handed
     * the lock only within this window (it then holds the lock for its lease, as a holder that dies).
     */
    static String handOffWindow(Duration lease) {
        return Long.toString(Math.max(1, Math.min(WaitingAcquisition.HEARTBEAT.toMillis(), lease.toMillis() / 3)));
    }

    /** Replies {1, token} if {@code owner} now holds the lock, else {0, holder's PTTL}. */
    public CompletableFuture<List<Object>> acquireAsync(RedisKeys keys, String owner, Duration lease) {
        return deployment.runner().callAsync(acquire(keys, owner, lease, Duration.ZERO, 0));
    }

    /** {@link #RELEASE}: the owner-checked delete that tells waiters. */
    ScriptCall release(RedisKeys keys, String owner) {
        return ScriptCall.of(RELEASE, ScriptReturn.LONG, List.of(keys.lock()), owner, keys.channel());
    }

    /** {@link #RELEASE_HANDING}: the release of a grant where {@link Deployment#handsOver()}. */
    ScriptCall releaseHanding(RedisKeys keys, String owner) {
        return ScriptCall.of(RELEASE_HANDING, ScriptReturn.LONG,
                List.of(keys.lock(), keys.fenceName(), keys.writersName(), keys.handOffsName()), owner,
                keys.channelName(), deployment.clock());
    }

    /** {@link #UNMARK} of a waiting writer of this deployment: its marker, its offer, a lock handed to it. */
    ScriptCall unmark(RedisKeys keys, String owner) {
        return ScriptCall.of(UNMARK, ScriptReturn.LONG,
                List.of(keys.lock(), keys.readers(), keys.writers(), keys.handOffs()), owner, keys.channel());
    }

    /** Redlock's second round: raises the counter to {@code token}; 1 if {@code owner} still holds the lock. */
    public CompletableFuture<Long> raiseFenceAsync(RedisKeys keys, String owner, long token) {
        return deployment.runner().callAsync(ScriptCall.of(RAISE_FENCE, ScriptReturn.LONG,
                List.of(keys.lock(), keys.fence()), owner, Long.toString(token)));
    }
}
