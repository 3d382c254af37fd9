package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.LockCommands;
import dev.mortise.lock.redis.internal.NodeReplies;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.redis.internal.RedlockCalls;
import dev.mortise.lock.redis.internal.RedlockHold;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackoffPolling;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * The Redlock backend ({@code "redlock"}): one lock over N independent Redis masters (no
 * replication between them), granted when a majority took it within the lease. Each
 * round goes to every node at once with a short per-node timeout, so up to N − majority
 * dead or slow nodes cost one timeout and nothing more.
 *
 * <p>Acquire: (1) the acquire script on every node, each returning its own fence
 * counter; (2) with a majority, the client takes the largest counter T and raises the
 * counter on every node it can reach to at least T, and the grant counts only if a majority
 * still holds the lock for us after that round and the whole attempt took less than
 * {@code lease − drift}. Any later majority overlaps the nodes that stored T, so its token
 * is larger — as long as the assumptions in {@code docs/redis.md} hold (a node that loses
 * its state does so alone or stays out; clocks drift within the allowance). Otherwise the
 * attempt releases on every node, including those that did not answer.
 *
 * <p>Shared (read) holds follow the same rule with the single-server shared scripts: the shared
 * acquire on every node, granted on a majority, its token raised the same way (see
 * {@link #supportsSharedMode()}).
 *
 * <p>Renewal and release go to every node; a hold counts as renewed (released) when a
 * majority renewed (had) it. Waiting polls with backoff bounded by the holders' remaining
 * leases; a waiting exclusive request marks every node as a waiting writer, which holds new
 * shares back. Thread-safe; {@link #close()} shuts down the clients this backend built.
 */
public final class RedlockBackend implements LockBackend {

    /** The backend's name in messages, metrics and configuration. */
    public static final String NAME = "redlock";

    private static final String FENCING_COUNTER =
            "The maximum of the per-node counters of a majority, raised on every reachable node before the grant "
                    + "counts: strictly increasing while every later majority meets a node that stored it, i.e. "
                    + "unless nodes that were part of that round lose their state (restart without persistence) "
                    + "in larger numbers than the overlap, or clocks drift beyond the allowance.";
    private static final String FENCING_SERVER_CLOCK =
            "The maximum over a majority of each node's max(counter + 1, its TIME in microseconds), raised on every "
                    + "reachable node before the grant counts: strictly increasing while every later majority meets a "
                    + "node that stored it, and, beyond that, as long as some node of the later majority has a clock "
                    + "ahead of the last token (a node that forgot its counter continues from its clock unless that "
                    + "clock stepped back across the restart by more than the restart took).";

    private static final Duration WARM_UP = Duration.ofSeconds(2);

    private final List<LockCommands> nodes;
    private final List<Runnable> closers;
    private final int quorum;
    private final Duration nodeTimeout;
    private final double driftFactor;
    private final Duration driftFixed;
    private final String prefix;
    private final AtomicLong attempts = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean warmedUp;

    RedlockBackend(List<LockCommands> nodes, List<Runnable> closers, Duration nodeTimeout, double driftFactor,
                   Duration driftFixed, String prefix) {
        this.nodes = List.copyOf(nodes);
        this.closers = List.copyOf(closers);
        this.quorum = nodes.size() / 2 + 1;
        this.nodeTimeout = nodeTimeout;
        this.driftFactor = driftFactor;
        this.driftFixed = driftFixed;
        this.prefix = prefix;
    }

    /** A builder; give it the addresses of the independent masters (or clients for them). */
    public static RedlockBackendBuilder builder() {
        return new RedlockBackendBuilder();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public BackendGuarantees guarantees() {
        return new BackendGuarantees(BackendGuarantees.LeaseModel.TIME_BOUND, false, BackendGuarantees.Wakeup.POLL,
                nodes.get(0).serverClock() ? FENCING_SERVER_CLOCK : FENCING_COUNTER, Duration.ofMillis(1));
    }

    /**
     * True: a shared (read) hold is the single-server shared acquire script granted on a majority of
     * the nodes within {@code lease − drift}, with its token raised as an exclusive grant's is (the
     * quorum's maximum, stored on every reachable node before the grant counts); renewal and release go
     * to every node. A waiting exclusive request leaves its writer-waiting marker on every node after
     * each refused attempt; each node refuses new shares while a marker is live there, so a reader that
     * cannot get a majority because of markers waits. Two shared grants whose attempts overlap in time
     * may carry the same token (each is the maximum of its own majority); a grant whose attempt starts
     * after another was granted carries a larger one.
     */
    @Override
    public boolean supportsSharedMode() {
        return true;
    }

    /** How many nodes must agree: a strict majority. */
    public int quorum() {
        return quorum;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return attempt(request);
    }

    /**
     * One attempt of either mode: (1) the acquire script of the request's mode on every node;
     * (2) with a majority of grants, the fence round; the grant counts if that round still finds
     * the hold on a majority within {@code lease − drift}. Otherwise cleans up on every node.
     */
    private Attempt attempt(LockRequest request) {
        warmUp();
        RedisKeys keys = RedisKeys.of(prefix, request.key());
        RedlockHold hold = new RedlockHold(keys, request.owner() + "/" + attempts.incrementAndGet(), request.lease(),
                request.shared());
        long start = System.nanoTime();
        NodeReplies<List<Object>> taken = NodeReplies.gather(nodes, n -> hold.shared()
                ? RedlockCalls.acquireShared(n, keys, hold.serverOwner(), request.lease())
                : n.acquireAsync(keys, hold.serverOwner(), request.lease()), nodeTimeout);
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
        if (granted >= quorum && raiseFence(hold, token, start, request.lease())) {
            return Attempt.granted(new Grant(request.key(), request.owner(), token, start, hold));
        }
        cleanUp(hold, taken);
        if (taken.answeredCount() < quorum) {
            throw new LockBackendException("Backend 'redlock' could not acquire lock '" + request.key() + "': only "
                    + taken.answeredCount() + " of " + nodes.size() + " Redis nodes answered within " + nodeTimeout.toMillis()
                    + " ms and a majority of " + quorum + " is needed (first failure: " + taken.firstFailure()
                    + "). Bring the nodes back or raise nodeTimeout; nothing was granted.", request.key(), NAME,
                    taken.firstFailure());
        }
        return Attempt.busy(holderRemaining == Long.MAX_VALUE ? null : Duration.ofMillis(holderRemaining));
    }

    /**
     * Polls with backoff (as {@link BackoffPolling}). An exclusive request that waits also leaves a
     * writer-waiting marker on every node after each refused attempt (one id for the whole wait), so
     * that a node refuses new shares meanwhile: a reader gets no majority while a majority of nodes
     * carry markers, and waits. The markers lapse with the wait; they are withdrawn on every node
     * when the wait ends, granted or not.
     */
    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        long deadline = Deadlines.after(System.nanoTime(), wait);
        if (request.shared() || Deadlines.left(deadline) == 0) {
            return BackoffPolling.acquire(this, request, wait);
        }
        RedisKeys keys = RedisKeys.of(prefix, request.key());
        String marker = request.owner() + "/w" + attempts.incrementAndGet();
        boolean marked = false;
        boolean granted = false;
        boolean failed = false;
        long ceiling = BackoffPolling.INITIAL_NANOS;
        try {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock '" + request.key() + "'");
                }
                Attempt attempt = attempt(request);
                if (attempt.isGranted()) {
                    granted = true;
                    return attempt.grant();
                }
                long left = Deadlines.left(deadline);
                if (left == 0) {
                    return Optional.empty();
                }
                marked = true;
                NodeReplies.gather(nodes, n -> RedlockCalls.mark(n, keys, marker, Duration.ofNanos(left)),
                        nodeTimeout);
                long sleep = Math.min(ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1), left);
                sleep = Math.min(sleep, attempt.holderRemaining().map(Duration::toNanos).orElse(sleep)
                        + TimeUnit.MILLISECONDS.toNanos(1));
                TimeUnit.NANOSECONDS.sleep(Math.max(0, sleep));
                ceiling = Math.min(BackoffPolling.MAX_NANOS, ceiling * 2);
            }
        } catch (RuntimeException e) {
            failed = true;
            throw e;
        } finally {
            if (marked) {
                // Granted: at once in the background (the lock itself keeps readers out now). Given
                // up: one node timeout for the round (none after a failure: the nodes may not answer
                // either), then in the background until the markers have lapsed.
                List<CompletableFuture<Long>> withdrawn = nodes.stream()
                        .map(n -> RedlockCalls.unmark(n, keys, marker, request.lease())).toList();
                if (!granted && !failed) {
                    NodeReplies.gather(withdrawn, f -> f, nodeTimeout);
                }
            }
        }
    }

    /**
     * Lets the lazily connecting clients open their connections (one ping per node, once)
     * before the first attempt starts its lease clock; connection set-up on first use can
     * take longer than a node timeout and would otherwise spend the first lease.
     */
    private void warmUp() {
        if (!warmedUp) {
            NodeReplies.gather(nodes, LockCommands::pingAsync, WARM_UP.compareTo(nodeTimeout) > 0 ? WARM_UP : nodeTimeout);
            warmedUp = true;
        }
    }

    /**
     * Round two: raise every reachable node's counter to the token; true if a majority
     * still holds the lock for us and the attempt ended within {@code lease − drift}.
     */
    private boolean raiseFence(RedlockHold hold, long token, long start, Duration lease) {
        NodeReplies<Long> raised = NodeReplies.gather(nodes, n -> hold.shared()
                ? RedlockCalls.raiseFenceShared(n, hold.keys(), hold.serverOwner(), token)
                : n.raiseFenceAsync(hold.keys(), hold.serverOwner(), token), nodeTimeout);
        int holding = 0;
        for (int i = 0; i < raised.size(); i++) {
            if (raised.answered(i) && raised.value(i) == 1) {
                holding++;
            }
        }
        long elapsed = System.nanoTime() - start;
        return holding >= quorum && elapsed + drift(lease) < lease.toNanos();
    }

    private long drift(Duration lease) {
        return (long) (lease.toNanos() * driftFactor) + driftFixed.toNanos();
    }

    /**
     * Gives back what a failed attempt took, on every node: where the node answered the
     * acquire, an owner-checked release; where it did not, the acquire may still be on its way
     * (and reach the node after anything sent now), so it is cancelled: released if it landed,
     * refused if it lands later. Waits one node timeout for the round; a node that does not
     * confirm is retried in the background (see {@code LockCommands.cancelAsync}).
     */
    private void cleanUp(RedlockHold hold, NodeReplies<List<Object>> taken) {
        List<Integer> indexes = IntStream.range(0, nodes.size()).boxed().toList();
        NodeReplies.gather(indexes, i -> !taken.answered(i)
                ? nodes.get(i).cancelAsync(hold.keys(), hold.serverOwner(), hold.lease())
                : hold.shared()
                ? RedlockCalls.releaseShared(nodes.get(i), hold.keys(), hold.serverOwner(), hold.lease())
                : nodes.get(i).releaseAsync(hold.keys(), hold.serverOwner(), hold.lease()), nodeTimeout);
    }

    /**
     * Releases a grant on every node: deletes the lock where the owner holds it, and where it
     * does not (a node whose acquire had not answered by the grant may still take it later),
     * leaves the owner's cancelled marker, which refuses that acquire when it arrives. A node
     * that does not confirm is retried in the background until its lease has certainly run out.
     */
    private NodeReplies<Long> releaseEverywhere(RedlockHold hold) {
        return NodeReplies.gather(nodes, n -> n.releaseOrCancelAsync(hold.keys(), hold.serverOwner(), hold.lease()),
                nodeTimeout);
    }

    @Override
    public boolean renew(Grant grant, Duration lease) {
        return !renewAll(List.of(grant), lease).contains(grant);
    }

    /** One script call per node for all grants; a grant is renewed if a majority renewed it. */
    @Override
    public Set<Grant> renewAll(Collection<Grant> grants, Duration lease) {
        if (grants.isEmpty()) {
            return Set.of();
        }
        List<Grant> ordered = new ArrayList<>(grants);
        List<String> holdKeys = ordered.stream().map(g -> g.<RedlockHold>state().holdKey()).toList();
        List<String> owners = ordered.stream().map(g -> g.<RedlockHold>state().serverOwner()).toList();
        StringBuilder modes = new StringBuilder(ordered.size());
        ordered.forEach(g -> modes.append(g.<RedlockHold>state().shared() ? 'S' : 'X'));
        NodeReplies<List<Object>> renewed = NodeReplies.gather(nodes,
                n -> RedlockCalls.renew(n, holdKeys, owners, modes.toString(), lease), nodeTimeout);
        if (renewed.answeredCount() < quorum) {
            throw new LockBackendException("Backend 'redlock' could not renew " + ordered.size() + " lock(s) such as '"
                    + ordered.get(0).key() + "': only " + renewed.answeredCount() + " of " + nodes.size()
                    + " nodes answered within " + nodeTimeout.toMillis() + " ms (first failure: " + renewed.firstFailure()
                    + "); the leases run out locally unless a later renewal succeeds.", ordered.get(0).key(), NAME,
                    renewed.firstFailure());
        }
        Set<Grant> gone = new HashSet<>();
        for (int g = 0; g < ordered.size(); g++) {
            int held = 0;
            for (int i = 0; i < renewed.size(); i++) {
                if (renewed.answered(i) && ((Number) renewed.value(i).get(g)).longValue() == 1) {
                    held++;
                }
            }
            if (held < quorum) {
                gone.add(ordered.get(g));
            }
        }
        return gone;
    }

    /** Releases on every node; true if a majority still had the hold. */
    @Override
    public boolean release(Grant grant) {
        RedlockHold hold = grant.state();
        NodeReplies<Long> released = releaseEverywhere(hold);
        int had = 0;
        for (int i = 0; i < released.size(); i++) {
            if (released.answered(i) && released.value(i) == 1) {
                had++;
            }
        }
        if (had < quorum && released.answeredCount() < quorum) {
            throw new LockBackendException("Backend 'redlock' could not release lock '" + grant.key() + "': only "
                    + released.answeredCount() + " of " + nodes.size() + " nodes answered (first failure: "
                    + released.firstFailure() + "); the hold ends when its lease runs out.", grant.key(), NAME,
                    released.firstFailure());
        }
        return had >= quorum;
    }

    /**
     * Reads every node at once (the single-server read script, {@code Scripts.INSPECT}, within the node
     * timeout) and reports the holds a majority of the nodes agree on: the same hold (the same owner and
     * attempt) present on at least {@link #quorum()} nodes, as a grant needs. Its remaining lease is the
     * minimum over those nodes (the hold counts only while a majority has it); its token the maximum
     * of their counters (exclusive) or stored tokens (shared), which is the token of the grant once its
     * second round reached them. A hold on fewer nodes (an attempt under way, a failed one being cleaned
     * up) is not reported. Waiters are unknown: Redlock waiters poll and leave no count on the nodes.
     *
     * @throws LockBackendException if fewer than a majority of the nodes answered
     */
    @Override
    public KeyState inspect(String key) {
        RedisKeys keys = RedisKeys.of(prefix, key);
        NodeReplies<List<Object>> read = NodeReplies.gather(nodes, n -> n.inspectAsync(keys), nodeTimeout);
        if (read.answeredCount() < quorum) {
            throw new LockBackendException("Backend 'redlock' could not inspect lock '" + key + "': only "
                    + read.answeredCount() + " of " + nodes.size() + " Redis nodes answered within "
                    + nodeTimeout.toMillis() + " ms and a majority of " + quorum + " is needed to say who holds it "
                    + "(first failure: " + read.firstFailure() + "). Bring the nodes back or raise nodeTimeout.",
                    key, NAME, read.firstFailure());
        }
        java.util.Map<String, NodeHolds> seen = new java.util.LinkedHashMap<>();
        for (int i = 0; i < read.size(); i++) {
            if (!read.answered(i)) {
                continue;
            }
            KeyState state = LockCommands.toKeyState(read.value(i));
            for (KeyState.Holder holder : state.holders()) {
                seen.computeIfAbsent(holder.owner(), o -> new NodeHolds(state.mode())).add(holder);
            }
        }
        List<KeyState.Holder> agreed = new ArrayList<>();
        dev.mortise.lock.LockMode mode = null;
        for (java.util.Map.Entry<String, NodeHolds> entry : seen.entrySet()) {
            NodeHolds holds = entry.getValue();
            if (holds.nodes < quorum) {
                continue;
            }
            if (holds.mode == dev.mortise.lock.LockMode.EXCLUSIVE) {
                // An exclusive hold on a majority excludes every other majority: it alone is the state.
                return new KeyState(holds.mode, List.of(holds.holder(requestOwner(entry.getKey()))),
                        java.util.OptionalInt.empty());
            }
            mode = holds.mode;
            agreed.add(holds.holder(requestOwner(entry.getKey())));
        }
        return agreed.isEmpty() ? KeyState.free(java.util.OptionalInt.empty())
                : new KeyState(mode, agreed, java.util.OptionalInt.empty());
    }

    /** The request's owner of a stored owner {@code <owner>/<attempt>} (see {@link RedlockHold}). */
    private static String requestOwner(String serverOwner) {
        int attempt = serverOwner.lastIndexOf('/');
        return attempt < 0 ? serverOwner : serverOwner.substring(0, attempt);
    }

    /** One stored owner's holds over the nodes: how many nodes have it, the least lease left, the largest token. */
    private static final class NodeHolds {
        final dev.mortise.lock.LockMode mode;
        int nodes;
        Duration remaining;
        long token = Long.MIN_VALUE;

        NodeHolds(dev.mortise.lock.LockMode mode) {
            this.mode = mode;
        }

        void add(KeyState.Holder holder) {
            nodes++;
            holder.remaining().ifPresent(r -> remaining = remaining == null || r.compareTo(remaining) < 0 ? r : remaining);
            holder.fencingToken().ifPresent(t -> token = Math.max(token, t));
        }

        KeyState.Holder holder(String owner) {
            return new KeyState.Holder(owner,
                    token == Long.MIN_VALUE ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(token),
                    Optional.ofNullable(remaining));
        }
    }

    @Override
    public void ping() {
        NodeReplies<Long> pinged = NodeReplies.gather(nodes, LockCommands::pingAsync, nodeTimeout);
        if (pinged.answeredCount() < quorum) {
            throw new LockBackendException("Backend 'redlock': only " + pinged.answeredCount() + " of " + nodes.size()
                    + " Redis nodes answered a ping within " + nodeTimeout.toMillis() + " ms; a majority of " + quorum
                    + " is needed to grant locks (first failure: " + pinged.firstFailure() + ").", null, NAME,
                    pinged.firstFailure());
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            closers.forEach(Runnable::run);
        }
    }

    @Override
    public String toString() {
        return "RedlockBackend[" + nodes.size() + " nodes, quorum " + quorum + "]";
    }
}
