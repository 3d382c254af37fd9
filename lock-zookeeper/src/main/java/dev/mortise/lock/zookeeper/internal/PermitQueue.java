package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import dev.mortise.lock.spi.WaitSteps;
import org.apache.curator.framework.api.CuratorEvent;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Native semaphores on a key's one queue: every acquisition creates one ephemeral sequential
 * permit node ({@link PermitNodes}: its count in the name, count, limit and owner in its data)
 * under the key's parent, beside (and ordered with) lock nodes, and goes through the same
 * {@link QueueLoop} as a lock request, under the semaphore's rule ({@link PermitAdmission}).
 *
 * <p><b>Admission (FIFO).</b> A permit node is granted when no lock node (exclusive, or shared
 * without permits) sorts before it and the counts of all nodes before it plus its own are at
 * most the stored count. Nodes ahead that still wait are counted too, so a waiter for many is
 * never overtaken by a later waiter for few, and the holders are always a prefix of the queue.
 *
 * <p><b>The stored count</b> is the limit in the data of the earliest permit node (each node
 * carries one, so it lives exactly as long as the holds: the last holder's node takes it
 * along). A request whose node finds an earlier node with another count is refused on arrival
 * ({@link PermitCountMismatchException}) and its node deleted; a request already waiting
 * follows the stored count. {@link PermitLimits#setPermits} rewrites the limit in every permit
 * node.
 *
 * <p><b>Waking</b> wakes exactly the waiters that may now be admitted, never misses a change
 * ({@link PermitAdmission}).
 *
 * <p>A hold left to linger ({@link LingerMarkers}) keeps the next admission waiting until its
 * marker expires, as in the lock queue. Nodes of requests that fail, time out, are interrupted
 * or cancelled are deleted when the wait ends. Thread-safe.
 */
public final class PermitQueue {

    private final ZkOps ops;
    private final LockPaths paths;
    private final QueueLoop loop;

    /** @param queue the key's lock queue, whose loop (create, parent handling, clean-up) this shares */
    public PermitQueue(ZkOps ops, LockPaths paths, LockQueue queue) {
        this.ops = ops;
        this.paths = paths;
        this.loop = queue.loop();
    }

    /**
     * One attempt that never waits. A look at the queue first (a listing, and the earliest
     * node's data if there are permit nodes) answers "busy" or refuses a count mismatch with no
     * write; otherwise the node is created and kept only if admitted. An interrupt found at the
     * look deletes the node and answers busy, the flag set again.
     *
     * @param grants makes the grant of our node once admitted
     * @throws PermitCountMismatchException if permit holds exist under another count
     */
    public Optional<Grant> tryAcquire(LockRequest request, Function<Owned, Grant> grants) {
        String key = request.key();
        Permits permits = request.permits();
        String parent = paths.parent(key);
        List<String> nodes = LockPaths.sortedLockNodes(ops.reads().children(parent, key));
        if (!nodes.isEmpty()) {
            if (PermitNodes.anyNonPermit(nodes)) {
                return Optional.empty();
            }
            CuratorEvent earliest = ops.reads().data(parent + "/" + nodes.get(0), key);
            int stored = earliest == null ? -1 : PermitNodes.limitOf(earliest.getData());
            if (stored > 0 && stored != permits.limit()) {
                throw new PermitCountMismatchException(key, Failures.BACKEND, stored, permits.limit());
            }
            int limit = stored > 0 ? stored : permits.limit();
            if (PermitNodes.countsBefore(nodes, nodes.size()) + permits.count() > limit) {
                return Optional.empty();
            }
        }
        try {
            return loop.once(request, new PermitAdmission(ops, request), QueueLoop.Runs.CALLER_INTERRUPTIBLE, grants);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * The wait for our permit node to be admitted, up to {@code wait}, as steps. A step throws
     * {@link PermitCountMismatchException} if, on arrival, permit holds exist under another count.
     *
     * @param async  whether the steps run on the shared asynchronous threads (else on the caller's,
     *               where an interrupt ends the wait)
     * @param grants makes the grant of our node once admitted
     */
    public WaitSteps waitFor(LockRequest request, Duration wait, boolean async, Function<Owned, Grant> grants) {
        return loop.turn(request, new PermitAdmission(ops, request), wait,
                async ? QueueLoop.Runs.ASYNC : QueueLoop.Runs.CALLER_INTERRUPTIBLE, grants);
    }
}
