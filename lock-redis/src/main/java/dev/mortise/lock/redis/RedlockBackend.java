package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.LockCommands;
import dev.mortise.lock.redis.internal.redlock.RedlockAttempts;
import dev.mortise.lock.redis.internal.redlock.RedlockHolds;
import dev.mortise.lock.redis.internal.redlock.RedlockInspection;
import dev.mortise.lock.redis.internal.redlock.RedlockNodes;
import dev.mortise.lock.redis.internal.redlock.RedlockWait;
import dev.mortise.lock.redis.internal.redlock.RedlockWaitRecords;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.BackoffPolling;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;
import dev.mortise.lock.spi.WaitDriver;
import dev.mortise.lock.spi.WaitRecords;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

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

    private final RedlockNodes nodes;
    private final RedlockAttempts attempts;
    private final RedlockHolds holds;
    private final RedlockInspection inspection;
    private final RedlockWaitRecords waitRecords;
    private final List<Runnable> closers;
    private final AtomicBoolean closed = new AtomicBoolean();

    RedlockBackend(List<LockCommands> nodes, List<Runnable> closers, Duration nodeTimeout, double driftFactor,
                   Duration driftFixed, String prefix) {
        this.nodes = new RedlockNodes(nodes, nodeTimeout, prefix);
        this.attempts = new RedlockAttempts(this.nodes, driftFactor, driftFixed);
        this.holds = new RedlockHolds(this.nodes);
        this.inspection = new RedlockInspection(this.nodes);
        this.waitRecords = new RedlockWaitRecords(this.nodes);
        this.closers = List.copyOf(closers);
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
                nodes.serverClock() ? FENCING_SERVER_CLOCK : FENCING_COUNTER, Duration.ofMillis(1));
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
        return nodes.quorum();
    }

    /**
     * One attempt of either mode: (1) the acquire script of the request's mode on every node;
     * (2) with a majority of grants, the fence round; the grant counts if that round still finds
     * the hold on a majority within {@code lease − drift}. Otherwise cleans up on every node.
     */
    @Override
    public Attempt tryAcquire(LockRequest request) {
        return attempts.attempt(request);
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
        return WaitDriver.await(new RedlockWait(nodes, attempts, request, wait), request.key());
    }

    /**
     * The same wait as {@link #acquire} (the same steps), run on the shared asynchronous threads: each
     * round of attempts on one of them, the backoff sleeps on the shared timer, no thread held between.
     * Completing the answer (cancel) withdraws the markers as an interrupt does; a grant that arrives
     * after that is released.
     */
    @Override
    public CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        return WaitDriver.start(this, new RedlockWait(nodes, attempts, request, wait));
    }

    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        return holds.renewAll(List.of(grant), lease).contains(grant) ? Optional.empty() : Optional.of(lease);
    }

    /** One script call per node for all grants; a grant is renewed if a majority renewed it. */
    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        return Renewals.of(holds.renewAll(grants, lease), lease);
    }

    /**
     * Releases on every node (where the owner does not hold it, its cancelled marker refuses an
     * acquire still on its way); true if a majority still had the hold.
     */
    @Override
    public boolean release(Grant grant) {
        return holds.release(grant);
    }

    /**
     * Reads every node at once (the single-server read script, {@code inspect.lua}, within the node
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
        return inspection.inspect(key);
    }

    /**
     * The Redis backend's records ({@code <prefix>:waits:{<holder id>}}, expired by each server) on
     * every node, one parallel round per call: a publish or removal counts when a majority applied it,
     * a read reports a record only when a majority of the nodes that answered hold the same text. See
     * {@code docs/redis.md}, "Wait records".
     */
    @Override
    public Optional<WaitRecords> waitRecords() {
        return Optional.of(waitRecords);
    }

    @Override
    public void ping() {
        nodes.ping();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            closers.forEach(Runnable::run);
        }
    }

    @Override
    public String toString() {
        return "RedlockBackend[" + nodes + "]";
    }
}
