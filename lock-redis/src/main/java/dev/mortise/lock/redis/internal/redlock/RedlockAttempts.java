package dev.mortise.lock.redis.internal.redlock;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

/**
 * One Redlock attempt of either mode, in two rounds: (1) the acquire script of the request's mode
 * on every node, each returning its own fence counter; (2) with a majority, the largest counter T
 * raised on every node it can reach, and the grant counts only if a majority still holds the hold
 * after that round and the whole attempt took less than {@code lease − drift}. Otherwise it cleans
 * up on every node, including those that did not answer. Thread-safe.
 */
public final class RedlockAttempts {

    private final RedlockNodes nodes;
    private final double driftFactor;
    private final Duration driftFixed;

    public RedlockAttempts(RedlockNodes nodes, double driftFactor, Duration driftFixed) {
        this.nodes = nodes;
        this.driftFactor = driftFactor;
        this.driftFixed = driftFixed;
    }

    /**
     * One attempt of either mode: (1) the acquire script of the request's mode on every node;
     * (2) with a majority of grants, the fence round; the grant counts if that round still finds
     * the hold on a majority within {@code lease − drift}. Otherwise cleans up on every node.
     *
     * @throws LockBackendException if fewer than a majority of the nodes answered the first round
     */
    public Attempt attempt(LockRequest request) {
        nodes.warmUp();
        RedisKeys keys = nodes.keys(request.key());
        RedlockHold hold = new RedlockHold(keys, request.owner() + "/" + nodes.nextAttempt(), request.lease(),
                request.shared());
        long start = System.nanoTime();
        NodeReplies<List<Object>> taken = nodes.gather(n -> hold.shared()
                ? RedlockCalls.acquireShared(n, keys, hold.serverOwner(), request.lease())
                : n.exclusive().acquireAsync(keys, hold.serverOwner(), request.lease()));
        long token = Long.MIN_VALUE;
        int granted = 0;
        long holderRemaining = Long.MAX_VALUE;
        for (int i = 0; i < taken.size(); i++) {
            if (taken.answered(i)) {
                long value = ((Number) taken.value(i).get(1)).longValue();
                if (((Number) taken.value(i).get(0)).longValue() == 1) {
                    granted++;
                    token = Math.max(token, value);
                } else if (value >= 0) {
                    holderRemaining = Math.min(holderRemaining, value);
                }
            }
        }
        if (granted >= nodes.quorum() && raiseFence(hold, token, start, request.lease())) {
            return Attempt.granted(new Grant(request.key(), request.owner(), token, start, hold));
        }
        cleanUp(hold, taken);
        if (taken.answeredCount() < nodes.quorum()) {
            throw new LockBackendException("Backend 'redlock' could not acquire lock '" + request.key() + "': only "
                    + taken.answeredCount() + " of " + nodes.size() + " Redis nodes answered within "
                    + nodes.nodeTimeout().toMillis() + " ms and a majority of " + nodes.quorum() + " is needed (first "
                    + "failure: " + taken.firstFailure() + "). Bring the nodes back or raise nodeTimeout; nothing was "
                    + "granted.", request.key(), RedlockNodes.NAME, taken.firstFailure());
        }
        return Attempt.busy(holderRemaining == Long.MAX_VALUE ? null : Duration.ofMillis(holderRemaining));
    }

    /**
     * Round two: raise every reachable node's counter to the token; true if a majority
     * still holds the lock for us and the attempt ended within {@code lease − drift}.
     */
    private boolean raiseFence(RedlockHold hold, long token, long start, Duration lease) {
        NodeReplies<Long> raised = nodes.gather(n -> hold.shared()
                ? RedlockCalls.raiseFenceShared(n, hold.keys(), hold.serverOwner(), token)
                : n.exclusive().raiseFenceAsync(hold.keys(), hold.serverOwner(), token));
        int holding = 0;
        for (int i = 0; i < raised.size(); i++) {
            if (raised.answered(i) && raised.value(i) == 1) {
                holding++;
            }
        }
        long elapsed = System.nanoTime() - start;
        return holding >= nodes.quorum() && elapsed + drift(lease) < lease.toNanos();
    }

    private long drift(Duration lease) {
        return (long) (lease.toNanos() * driftFactor) + driftFixed.toNanos();
    }

    /**
     * Gives back what a failed attempt took, on every node: where the node answered the
     * acquire, an owner-checked release; where it did not, the acquire may still be on its way
     * (and reach the node after anything sent now), so it is cancelled: released if it landed,
     * refused if it lands later. Waits one node timeout for the round; a node that does not
     * confirm is retried in the background (see {@code HoldCommands.cancelAsync}).
     */
    private void cleanUp(RedlockHold hold, NodeReplies<List<Object>> taken) {
        List<Integer> indexes = IntStream.range(0, nodes.size()).boxed().toList();
        NodeReplies.gather(indexes, i -> !taken.answered(i)
                ? nodes.all().get(i).holds().cancelAsync(hold.keys(), hold.serverOwner(), hold.lease())
                : hold.shared()
                ? RedlockCalls.releaseShared(nodes.all().get(i), hold.keys(), hold.serverOwner(), hold.lease())
                : nodes.all().get(i).holds().releaseAsync(hold.keys(), hold.serverOwner(), hold.lease()),
                nodes.nodeTimeout());
    }
}
