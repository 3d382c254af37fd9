package dev.mortise.lock.redis.internal.redlock;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.WaitRecordCommands;
import dev.mortise.lock.spi.WaitRecords;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Redlock's {@link WaitRecords}: every node keeps the records as a single server does
 * ({@link WaitRecordCommands}: a string per holder id with the server's {@code PX} expiry), and each
 * call is one round to all nodes at once, every node bounded by the node timeout. A publish or a
 * removal counts when a majority of the nodes applied it; a read reports a record only when a
 * majority of the nodes that answered hold the same text for it, so a record left on a minority (a
 * publish that failed there, a removal that did not reach it) is no evidence of a wait. Fewer than a
 * majority answering is a {@link LockBackendException}. What a failed round wrote on some nodes
 * expires there by itself. Thread-safe.
 */
public final class RedlockWaitRecords implements WaitRecords {

    private final RedlockNodes nodes;

    public RedlockWaitRecords(RedlockNodes nodes) {
        this.nodes = nodes;
    }

    /** @return {@code ttl} in whole milliseconds, rounded up: what each node's {@code PX} applies */
    @Override
    public Duration publish(Collection<String> holderIds, String nonce, String text, Duration ttl) {
        if (!holderIds.isEmpty()) {
            nodes.warmUp();
            NodeReplies<java.util.List<Object>> written = nodes.gather(n -> n.waitRecords().publishAsync(holderIds, nonce, text, ttl));
            requireMajority(written, "publish", holderIds);
        }
        return WaitRecordCommands.applied(ttl);
    }

    @Override
    public void remove(Collection<String> holderIds, String nonce) {
        if (!holderIds.isEmpty()) {
            nodes.warmUp();
            requireMajority(nodes.gather(n -> n.waitRecords().removeAsync(holderIds, nonce)), "remove", holderIds);
        }
    }

    /** The records a majority of the answering nodes agree on, by text. */
    @Override
    public Map<String, String> read(Collection<String> holderIds) {
        if (holderIds.isEmpty()) {
            return Map.of();
        }
        nodes.warmUp();
        NodeReplies<Map<String, String>> read = nodes.gather(n -> n.waitRecords().readAsync(holderIds));
        requireMajority(read, "read", holderIds);
        int needed = read.answeredCount() / 2 + 1;
        Map<String, String> agreed = new LinkedHashMap<>();
        for (String holderId : new LinkedHashSet<>(holderIds)) {
            Map<String, Integer> votes = new HashMap<>();
            for (int i = 0; i < read.size(); i++) {
                String stored = read.answered(i) ? read.value(i).get(holderId) : null;
                if (stored != null && votes.merge(WaitRecordCommands.text(stored), 1, Integer::sum) == needed) {
                    agreed.put(holderId, WaitRecordCommands.text(stored));
                }
            }
        }
        return agreed;
    }

    private void requireMajority(NodeReplies<?> replies, String what, Collection<String> holderIds) {
        if (replies.answeredCount() < nodes.quorum()) {
            throw new LockBackendException("Backend 'redlock' could not " + what + " the wait records of "
                    + holderIds.size() + " holder id(s): only " + replies.answeredCount() + " of " + nodes.size()
                    + " Redis nodes answered within " + nodes.nodeTimeout().toMillis() + " ms and a majority of "
                    + nodes.quorum() + " is needed (first failure: " + replies.firstFailure() + "). Bring the nodes "
                    + "back or raise nodeTimeout.", null, RedlockNodes.NAME, replies.firstFailure());
        }
    }
}
