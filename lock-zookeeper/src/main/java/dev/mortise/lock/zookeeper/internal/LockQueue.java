package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.LockRequest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The queue protocol on one key's parent node: every acquirer creates an ephemeral
 * sequential node, the lowest sequence owns the lock, and a waiter watches only the node
 * just ahead of it, so a release wakes exactly one waiter (no herd). Nodes of attempts
 * that fail, time out or are interrupted are deleted before the call returns.
 */
public final class LockQueue {

    private static final Logger log = LoggerFactory.getLogger(LockQueue.class);

    private final ZkOps ops;
    private final LockPaths paths;
    private final LongSupplier currentSession;
    private final AtomicLong notifications = new AtomicLong();

    /** @param currentSession the id of the client's live session (0 if none) */
    public LockQueue(ZkOps ops, LockPaths paths, LongSupplier currentSession) {
        this.ops = ops;
        this.paths = paths;
        this.currentSession = currentSession;
    }

    /** A node that owns its key, and when the request that proved it was sent. */
    public record Owned(NodeRef node, long requestedAtNanos) {
    }

    /**
     * One attempt that never waits. A look at the queue first answers "busy" with one read
     * and no write (scheduled jobs on many instances mostly find the lock busy); otherwise
     * our node is created and deleted again unless it is first.
     */
    public Optional<Owned> tryAcquire(LockRequest request) {
        String parent = paths.parent(request.key());
        if (!LockPaths.sortedLockNodes(ops.children(parent, request.key())).isEmpty()) {
            return Optional.empty();
        }
        long requestedAt = System.nanoTime();
        NodeRef node = ops.create(parent, request.owner(), request.key());
        boolean owned = false;
        try {
            owned = predecessor(parent, node, request.key()) == null;
            return owned ? Optional.of(new Owned(node, requestedAt)) : Optional.empty();
        } finally {
            if (!owned) {
                deleteOurNode(node, request.key());
            }
        }
    }

    /**
     * Queues and waits up to {@code wait} for our node to become first.
     *
     * @throws InterruptedException if interrupted while waiting; our node is deleted first
     */
    public Optional<Owned> acquire(LockRequest request, Duration wait) throws InterruptedException {
        long requestedAt = System.nanoTime();
        long deadline = Deadlines.after(requestedAt, wait);
        String parent = paths.parent(request.key());
        NodeRef node = ops.create(parent, request.owner(), request.key());
        boolean owned = false;
        String watched = null;
        PredecessorWatch unfired = null;
        try {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock '" + request.key() + "'");
                }
                String ahead = predecessor(parent, node, request.key());
                if (ahead == null) {
                    owned = true;
                    return Optional.of(new Owned(node, requestedAt));
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                if (unfired != null) {
                    ops.unwatch(watched, unfired);
                    unfired = null;
                }
                PredecessorWatch watch = new PredecessorWatch(notifications);
                watched = parent + "/" + ahead;
                if (ops.watch(watched, watch, request.key())) {
                    unfired = watch;
                    if (watch.await(left)) {
                        unfired = null;
                    }
                }
                // Ownership is proved by the next listing; validity counts from just before it.
                requestedAt = System.nanoTime();
            }
        } finally {
            if (unfired != null) {
                ops.unwatch(watched, unfired);
            }
            if (!owned) {
                deleteOurNode(node, request.key());
            }
        }
    }

    /**
     * The node just ahead of ours, or {@code null} if ours is first.
     *
     * @throws dev.mortise.lock.LockBackendException if our node is gone or belongs to a
     *                                               session that ended: neither is ever taken
     *                                               for ownership
     */
    private String predecessor(String parent, NodeRef node, String key) {
        List<String> queue = LockPaths.sortedLockNodes(ops.children(parent, key));
        int at = queue.indexOf(node.name());
        // After an expiry the client reconnects with a new session while the server may still
        // show our old node for up to a session timeout; it will vanish, so it must not win.
        // Read after the listing: if the session is still ours now, it was when the server answered.
        if (at < 0 || node.sessionId() != currentSession.getAsLong()) {
            throw Failures.sessionEndedWhileWaiting(key, node.path());
        }
        return at == 0 ? null : queue.get(at - 1);
    }

    /**
     * Deletes our node. ZkOps waits for the answer without giving in to an interrupt (the
     * interrupt that ended the wait must not also cut the cleanup short) and sets the flag
     * again afterwards, so the caller still sees it.
     */
    private void deleteOurNode(NodeRef node, String key) {
        try {
            ops.delete(node.path(), key);
        } catch (RuntimeException e) {
            // Guaranteed delete keeps retrying in the background; the session's end removes it at the latest.
            log.debug("Cleaning up lock node {} failed", node.path(), e);
        }
    }

    /** Watch notifications received by waiters so far (for the herd measurement). */
    public long notifications() {
        return notifications.get();
    }
}
