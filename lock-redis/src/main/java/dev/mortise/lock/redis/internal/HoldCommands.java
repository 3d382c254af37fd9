package dev.mortise.lock.redis.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Grant;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The renewal and release family: what a hold needs once granted (renewal, batched by slot; the
 * release of either mode), and the clean-up of an attempt whose answer never came or may still come
 * ({@code cancel.lua}, which leaves the owner's cancelled marker so a late arrival is refused). The
 * release of a hold picks its script by mode: fair mode's, the shared one, or, for an exclusive hold,
 * the one that hands over where {@link Deployment#handsOver()}. Thread-safe.
 */
public final class HoldCommands {

    /** {@code renew.lua}: one 1 (renewed) or 0 (gone) per hold of one slot. */
    public static final LuaScript RENEW = LuaFiles.withPrelude("renew");
    /** {@code cancel.lua}: releases what the owner holds, sets its cancelled marker; 1 if it held. */
    public static final LuaScript CANCEL = LuaFiles.withPrelude("cancel");

    private final Deployment deployment;
    private final ExclusiveCommands exclusive;
    private final SharedCommands shared;
    private final FairCommands fair;

    HoldCommands(Deployment deployment, ExclusiveCommands exclusive, SharedCommands shared, FairCommands fair) {
        this.deployment = deployment;
        this.exclusive = exclusive;
        this.shared = shared;
        this.fair = fair;
    }

    /** The owner-checked release of a hold of this deployment (fair mode's, the shared one, or the plain one). */
    ScriptCall release(RedisKeys keys, String owner, boolean isShared) {
        if (deployment.fair()) {
            return fair.release(keys, owner);
        }
        if (isShared) {
            return shared.release(keys, owner);
        }
        return exclusive.release(keys, owner);
    }

    /** The release of a grant of this deployment: hands over to a waiting writer where {@link Deployment#handsOver()}. */
    private ScriptCall releaseHold(RedisKeys keys, String owner, boolean isShared) {
        if (isShared || !deployment.handsOver()) {
            return release(keys, owner, isShared);
        }
        return exclusive.releaseHanding(keys, owner);
    }

    /**
     * Releases a grant: true if it was ours and is gone now. An answer "not ours" to a release that
     * may have reached the server twice (its first answer lost with the connection, then sent again)
     * counts as released ({@link MaybeResent}: the first send took it).
     */
    public boolean release(Grant grant) {
        Object state = grant.state();
        ScriptRunner.Answer<Long> released = deployment.runner().callNoticingResends(
                releaseHold(ReadHold.keysOf(state), grant.owner(), ReadHold.isShared(state)), grant.key(), "release");
        return MaybeResent.had(released.value(), released.maybeResent());
    }

    /**
     * Redlock: owner-checked release on a node whose acquire was answered (so it cannot arrive
     * later); retried in the background until confirmed or {@link Deployment#horizon} of {@code lease}.
     *
     * @return the first try's reply: 1 if the owner held the lock there, else 0
     */
    public CompletableFuture<Long> releaseAsync(RedisKeys keys, String owner, Duration lease) {
        return CleanUps.send(deployment.runner(), release(keys, owner, false),
                CleanUps.deadlineAfter(deployment.horizon(lease)));
    }

    /**
     * Clean-up of an attempt whose answer never came (or may come later): deletes the lock if
     * {@code owner} holds it and, always, sets the owner's cancelled marker for {@link Deployment#horizon}
     * of {@code lease}, so the attempt is refused if it reaches the server after this. Retried in
     * the background until confirmed or the horizon passes. In fair mode it also leaves the queue
     * (and passes on a lock handed over meanwhile).
     *
     * @return the first try's reply: 1 if the owner held the lock, else 0
     */
    public CompletableFuture<Long> cancelAsync(RedisKeys keys, String owner, Duration lease) {
        return CleanUps.send(deployment.runner(), cancel(keys, owner, lease, true),
                CleanUps.deadlineAfter(deployment.horizon(lease)));
    }

    /**
     * Redlock's release of a grant: on each node, the lock is deleted if the owner holds it;
     * where it does not (a node whose acquire never answered), the owner's cancelled marker is
     * set instead, so that acquire is refused if it arrives later. Retried like {@link #cancelAsync}.
     */
    public CompletableFuture<Long> releaseOrCancelAsync(RedisKeys keys, String owner, Duration lease) {
        return CleanUps.send(deployment.runner(), cancel(keys, owner, lease, false),
                CleanUps.deadlineAfter(deployment.horizon(lease)));
    }

    private ScriptCall cancel(RedisKeys keys, String owner, Duration lease, boolean always) {
        String ttl = MillisText.millis(deployment.horizon(lease));
        if (deployment.fair()) {
            return fair.cancel(keys, owner, ttl);
        }
        return ScriptCall.of(CANCEL, ScriptReturn.LONG, List.of(keys.lock(), keys.cancelled(owner),
                keys.readers(), keys.writers(), keys.handOffs()), owner, keys.channel(), ttl, always ? "1" : "0");
    }

    /** Renews every grant: one script call per slot, pipelined per node. Returns the grants that are gone. */
    public Set<Grant> renewAll(Collection<Grant> grants, Duration lease) {
        if (grants.isEmpty()) {
            return Set.of();
        }
        Map<Integer, List<Grant>> groups = new LinkedHashMap<>();
        for (Grant grant : grants) {
            int group = deployment.cluster() ? ReadHold.keysOf(grant.state()).slot() : 0;
            groups.computeIfAbsent(group, g -> new ArrayList<>()).add(grant);
        }
        List<List<Grant>> ordered = new ArrayList<>(groups.values());
        List<List<Object>> replies = renewReplies(ordered, lease, grants);
        Set<Grant> gone = new HashSet<>();
        for (int g = 0; g < ordered.size(); g++) {
            List<Grant> group = ordered.get(g);
            for (int i = 0; i < group.size(); i++) {
                if (((Number) replies.get(g).get(i)).longValue() != 1) {
                    gone.add(group.get(i));
                }
            }
        }
        return gone;
    }

    /** One renew call per group, as one call or one pipelined batch (with {@code WAIT} when replicas are required). */
    private List<List<Object>> renewReplies(List<List<Grant>> ordered, Duration lease, Collection<Grant> grants) {
        List<List<Object>> replies = new ArrayList<>(ordered.size());
        String key = grants.iterator().next().key();
        String what = grants.size() == 1 ? "renew" : "renew " + grants.size() + " locks including";
        int replicas = deployment.replicas();
        ScriptRunner runner = deployment.runner();
        if (ordered.size() == 1 && replicas == 0) {
            replies.add(runner.call(renewCall(ordered.get(0), lease), key, what));
            return replies;
        }
        List<ScriptCall> calls = ordered.stream().map(g -> renewCall(g, lease)).toList();
        BatchReply result = runner.batch(calls, replicas, deployment.replicaTimeout(), key, what);
        if (result.syncedReplicas() < replicas) {
            throw new LockBackendException("Backend 'redis' (" + runner.where() + ") renewed lock(s) such as '"
                    + ScriptRunner.abbreviate(key) + "' but only " + result.syncedReplicas() + " of the required "
                    + replicas + " replica(s) acknowledged within " + deployment.replicaTimeout().toMillis()
                    + " ms; the leases are not counted as renewed. Check replication (INFO replication).", key,
                    "redis", null);
        }
        result.replies().forEach(r -> replies.add(cast(r)));
        return replies;
    }

    /** Exclusive and shared holds together: the lock of each exclusive one, the readers of each shared one. */
    private static ScriptCall renewCall(List<Grant> grants, Duration lease) {
        List<String> keys = new ArrayList<>(grants.size());
        StringBuilder modes = null;
        for (int i = 0; i < grants.size(); i++) {
            Object state = grants.get(i).state();
            if (ReadHold.isShared(state)) {
                if (modes == null) {
                    modes = new StringBuilder(grants.size()).append("X".repeat(i));
                }
                modes.append('S');
                keys.add(((ReadHold) state).keys().readers());
            } else {
                if (modes != null) {
                    modes.append('X');
                }
                keys.add(((RedisKeys) state).lock());
            }
        }
        return renewCall(keys, grants.stream().map(Grant::owner).toList(), modes == null ? "" : modes.toString(),
                lease);
    }

    /**
     * Renews holds that all live in one slot (or on one non-cluster server): per hold, the lock key
     * (exclusive) or the readers key (shared), its owner, and {@code modes} with one character per
     * hold, 'S' for a shared one (empty when all are exclusive). Replies one flag (1 renewed, 0 gone)
     * per hold.
     */
    public static ScriptCall renewCall(List<String> holdKeys, List<String> owners, String modes, Duration lease) {
        Object[] args = new Object[owners.size() + 2];
        args[0] = MillisText.millis(lease);
        args[1] = modes;
        for (int i = 0; i < owners.size(); i++) {
            args[i + 2] = owners.get(i);
        }
        return ScriptCall.of(RENEW, ScriptReturn.LIST, new ArrayList<>(holdKeys), args);
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object reply) {
        return (T) reply;
    }
}
