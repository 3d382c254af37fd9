package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.WaitSteps;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Exclusive and shared holds on one key's queue: every acquirer creates an ephemeral
 * sequential node (exclusive or shared, in the one queue of the key, ordered by sequence
 * alone) and goes through the {@link QueueLoop} under the lock queue's rule
 * ({@link LockAdmission}: an exclusive node owns the lock when it is first, a shared node when
 * no exclusive node sorts before it; each watches only the one node it waits for, so there is
 * no herd). Nodes of attempts that fail, time out, are interrupted or cancelled are deleted
 * when the wait ends. A hold left to linger past its session ({@link LingerMarkers}) keeps whichever
 * node would own the lock next waiting until its marker expires (a lingering share, too, holds
 * off readers and writers alike: the marker does not record the mode, which errs on the safe
 * side). Thread-safe.
 */
public final class LockQueue {

    private final ZkOps ops;
    private final LockPaths paths;
    private final QueueLoop loop;

    /** @param currentSession the id of the client's live session (0 if none) */
    public LockQueue(ZkOps ops, LockPaths paths, LongSupplier currentSession) {
        this.ops = ops;
        this.paths = paths;
        this.loop = new QueueLoop(ops, paths, currentSession);
    }

    /** The loop this queue runs, which {@link PermitQueue} shares. */
    QueueLoop loop() {
        return loop;
    }

    /**
     * One attempt that never waits. A look at the queue first answers "busy" with one read
     * and no write (scheduled jobs on many instances mostly find the lock busy): for an
     * exclusive request if any node is queued, for a shared one if an exclusive node is
     * (held or waiting). Otherwise our node is created and deleted again unless it owns the
     * lock (first; shared: no exclusive node before it). An interrupt is left in the flag.
     *
     * @param grants makes the grant of our node once it owns the lock
     */
    public Optional<Grant> tryAcquire(LockRequest request, Function<Owned, Grant> grants) {
        List<String> children = ops.reads().children(paths.parent(request.key()), request.key());
        if (request.shared() ? LockPaths.anyExclusive(children) : !LockPaths.sortedLockNodes(children).isEmpty()) {
            return Optional.empty();
        }
        try {
            return loop.once(request, new LockAdmission(request), QueueLoop.Runs.CALLER, grants);
        } catch (InterruptedException e) {
            throw new AssertionError("a look that does not wait is not interrupted", e);
        }
    }

    /**
     * The wait for our node to own the lock, up to {@code wait}, as steps: an exclusive node
     * when it is first, a shared node when no exclusive node sorts before it.
     *
     * @param async  whether the steps run on the shared asynchronous threads (else on the caller's,
     *               where an interrupt ends the wait)
     * @param grants makes the grant of our node once it owns the lock
     */
    public WaitSteps waitFor(LockRequest request, Duration wait, boolean async, Function<Owned, Grant> grants) {
        return loop.turn(request, new LockAdmission(request), wait,
                async ? QueueLoop.Runs.ASYNC : QueueLoop.Runs.CALLER_INTERRUPTIBLE, grants);
    }

    /** Watch notifications received by waiters so far (for the herd measurement). */
    public long notifications() {
        return loop.notifications();
    }
}
