package dev.mortise.lock.redis.internal.redlock;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.redis.internal.Inspection;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.KeyState;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Redlock's {@code inspect}: reads every node at once (the single-server read script,
 * {@code inspect.lua}, within the node timeout) and reports the holds a majority of the nodes agree
 * on. Thread-safe.
 */
public final class RedlockInspection {

    private final RedlockNodes nodes;

    public RedlockInspection(RedlockNodes nodes) {
        this.nodes = nodes;
    }

    /**
     * The holds a majority of the nodes agree on: the same hold (the same owner and attempt) present on
     * at least {@link RedlockNodes#quorum()} nodes, as a grant needs. Its remaining lease is the minimum
     * over those nodes (the hold counts only while a majority has it); its token the maximum of their
     * counters (exclusive) or stored tokens (shared), which is the token of the grant once its second
     * round reached them. A hold on fewer nodes (an attempt under way, a failed one being cleaned up)
     * is not reported. Waiters are unknown: Redlock waiters poll and leave no count on the nodes.
     *
     * @throws LockBackendException if fewer than a majority of the nodes answered
     */
    public KeyState inspect(String key) {
        RedisKeys keys = nodes.keys(key);
        NodeReplies<List<Object>> read = nodes.gather(n -> n.inspection().inspectAsync(keys));
        if (read.answeredCount() < nodes.quorum()) {
            throw new LockBackendException("Backend 'redlock' could not inspect lock '" + key + "': only "
                    + read.answeredCount() + " of " + nodes.size() + " Redis nodes answered within "
                    + nodes.nodeTimeout().toMillis() + " ms and a majority of " + nodes.quorum() + " is needed to say "
                    + "who holds it (first failure: " + read.firstFailure() + "). Bring the nodes back or raise "
                    + "nodeTimeout.", key, RedlockNodes.NAME, read.firstFailure());
        }
        Map<String, NodeHolds> seen = new LinkedHashMap<>();
        for (int i = 0; i < read.size(); i++) {
            if (!read.answered(i)) {
                continue;
            }
            KeyState state = Inspection.toKeyState(read.value(i));
            for (KeyState.Holder holder : state.holders()) {
                seen.computeIfAbsent(holder.owner(), o -> new NodeHolds(state.mode())).add(holder);
            }
        }
        List<KeyState.Holder> agreed = new ArrayList<>();
        LockMode mode = null;
        for (Map.Entry<String, NodeHolds> entry : seen.entrySet()) {
            NodeHolds holds = entry.getValue();
            if (holds.nodes < nodes.quorum()) {
                continue;
            }
            if (holds.mode == LockMode.EXCLUSIVE) {
                // An exclusive hold on a majority excludes every other majority: it alone is the state.
                return new KeyState(holds.mode, List.of(holds.holder(requestOwner(entry.getKey()))),
                        OptionalInt.empty());
            }
            mode = holds.mode;
            agreed.add(holds.holder(requestOwner(entry.getKey())));
        }
        return agreed.isEmpty() ? KeyState.free(OptionalInt.empty()) : new KeyState(mode, agreed, OptionalInt.empty());
    }

    /** The request's owner of a stored owner {@code <owner>/<attempt>} (see {@link RedlockHold}). */
    private static String requestOwner(String serverOwner) {
        int attempt = serverOwner.lastIndexOf('/');
        return attempt < 0 ? serverOwner : serverOwner.substring(0, attempt);
    }

    /** One stored owner's holds over the nodes: how many nodes have it, the least lease left, the largest token. */
    private static final class NodeHolds {
        final LockMode mode;
        int nodes;
        Duration remaining;
        long token = Long.MIN_VALUE;

        NodeHolds(LockMode mode) {
            this.mode = mode;
        }

        void add(KeyState.Holder holder) {
            nodes++;
            holder.remaining().ifPresent(r -> remaining = remaining == null || r.compareTo(remaining) < 0 ? r : remaining);
            holder.fencingToken().ifPresent(t -> token = Math.max(token, t));
        }

        KeyState.Holder holder(String owner) {
            return new KeyState.Holder(owner, token == Long.MIN_VALUE ? OptionalLong.empty() : OptionalLong.of(token),
                    Optional.ofNullable(remaining));
        }
    }
}
