package dev.mortise.lock.redis.internal.redlock;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.MaybeResent;
import dev.mortise.lock.spi.Grant;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a Redlock grant needs once granted: renewal and release go to every node; a hold counts as
 * renewed (released) when a majority renewed (had) it. Thread-safe.
 */
public final class RedlockHolds {

    private final RedlockNodes nodes;

    public RedlockHolds(RedlockNodes nodes) {
        this.nodes = nodes;
    }

    /** One script call per node for all grants; a grant is renewed if a majority renewed it. */
    public Set<Grant> renewAll(Collection<Grant> grants, Duration lease) {
        if (grants.isEmpty()) {
            return Set.of();
        }
        List<Grant> ordered = new ArrayList<>(grants);
        List<String> holdKeys = ordered.stream().map(g -> g.<RedlockHold>state().holdKey()).toList();
        List<String> owners = ordered.stream().map(g -> g.<RedlockHold>state().serverOwner()).toList();
        StringBuilder modes = new StringBuilder(ordered.size());
        ordered.forEach(g -> modes.append(g.<RedlockHold>state().shared() ? 'S' : 'X'));
        NodeReplies<List<Object>> renewed = nodes.gather(
                n -> RedlockCalls.renew(n, holdKeys, owners, modes.toString(), lease));
        if (renewed.answeredCount() < nodes.quorum()) {
            throw new LockBackendException("Backend 'redlock' could not renew " + ordered.size() + " lock(s) such as '"
                    + ordered.get(0).key() + "': only " + renewed.answeredCount() + " of " + nodes.size()
                    + " nodes answered within " + nodes.nodeTimeout().toMillis() + " ms (first failure: "
                    + renewed.firstFailure() + "); the leases run out locally unless a later renewal succeeds.",
                    ordered.get(0).key(), RedlockNodes.NAME, renewed.firstFailure());
        }
        Set<Grant> gone = new HashSet<>();
        for (int g = 0; g < ordered.size(); g++) {
            int held = 0;
            for (int i = 0; i < renewed.size(); i++) {
                if (renewed.answered(i) && ((Number) renewed.value(i).get(g)).longValue() == 1) {
                    held++;
                }
            }
            if (held < nodes.quorum()) {
                gone.add(ordered.get(g));
            }
        }
        return gone;
    }

    /**
     * Releases a grant on every node: deletes the lock where the owner holds it, and where it
     * does not (a node whose acquire had not answered by the grant may still take it later),
     * leaves the owner's cancelled marker, which refuses that acquire when it arrives. A node
     * that does not confirm is retried in the background until its lease has certainly run out.
     *
     * <p>A node's "not there" counts as "had" when its release may have reached it twice (a Lettuce
     * connection that broke with the first send's answer and resent it on reconnecting): the first
     * send took the hold, as on a single server ({@link MaybeResent}, node by node); otherwise a
     * release whose answers were cut off would be told to its owner as a loss. A loss is told only
     * when a majority said "not there": a node that did not answer may have had it (its answer cut
     * off, a driver that does not resend), so without a majority either way the release is
     * unconfirmed.
     *
     * @return true if a majority still had the hold, false if a majority no longer had it
     * @throws LockBackendException if neither is known: too few nodes answered either way
     */
    public boolean release(Grant grant) {
        RedlockHold hold = grant.state();
        List<MaybeResent> resends = nodes.all().stream()
                .map(n -> MaybeResent.watch(n.deployment().runner().transport())).toList();
        NodeReplies<Long> released = nodes.gather(
                n -> n.holds().releaseOrCancelAsync(hold.keys(), hold.serverOwner(), hold.lease()));
        int had = 0;
        int missing = 0;
        for (int i = 0; i < released.size(); i++) {
            if (!released.answered(i)) {
                continue;
            }
            if (MaybeResent.had(released.value(i), resends.get(i).resent())) {
                had++;
            } else {
                missing++;
            }
        }
        if (had < nodes.quorum() && missing < nodes.quorum()) {
            throw new LockBackendException("Backend 'redlock' could not release lock '" + grant.key() + "': "
                    + had + " of " + nodes.size() + " nodes had it, " + missing + " no longer had it and "
                    + (nodes.size() - had - missing) + " did not answer (first failure: " + released.firstFailure()
                    + "); the hold ends when its lease runs out.", grant.key(), RedlockNodes.NAME,
                    released.firstFailure());
        }
        return had >= nodes.quorum();
    }
}
