package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.LockRequest;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.data.Stat;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The queue protocol on one key's parent node: every acquirer creates an ephemeral
 * sequential node (exclusive or shared, in the one queue of the key, ordered by sequence
 * alone). An exclusive node owns the lock when it is first and watches only the node just
 * ahead of it, so a release wakes exactly one exclusive waiter (no herd). A shared node
 * owns a share when no exclusive node sorts before it, and watches only the last exclusive
 * node before it: a writer's release wakes exactly the readers queued behind it up to the
 * next writer (all of them can go), and a reader that comes after a waiting writer waits
 * for it (no writer starvation). Nodes of attempts that fail, time out or are interrupted
 * are deleted before the call returns. A hold left to linger past its session
 * ({@link LingerMarkers}) keeps whichever node would own the lock next waiting until its
 * marker expires (a lingering share, too, holds off readers and writers alike: the marker
 * does not record the mode, which errs on the safe side).
 */
public final class LockQueue {

    private static final Logger log = LoggerFactory.getLogger(LockQueue.class);

    private final ZkOps ops;
    private final LockPaths paths;
    private final LongSupplier currentSession;
    private final LingerMarkers lingering;
    private final AtomicLong notifications = new AtomicLong();
    /** Whether the root existed at the last create: a missing parent then needs only its own create. */
    private volatile boolean rootExists;

    /** Creates before giving up on a parent that keeps vanishing. */
    private static final int MAX_CREATE_ATTEMPTS = 5;

    /** @param currentSession the id of the client's live session (0 if none) */
    public LockQueue(ZkOps ops, LockPaths paths, LongSupplier currentSession) {
        this.ops = ops;
        this.paths = paths;
        this.currentSession = currentSession;
        this.lingering = new LingerMarkers(ops);
    }

    /** A node that owns its key, and when the request that proved it was sent. */
    public record Owned(NodeRef node, long requestedAtNanos) {
    }

    /**
     * One attempt that never waits. A look at the queue first answers "busy" with one read
     * and no write (scheduled jobs on many instances mostly find the lock busy): for an
     * exclusive request if any node is queued, for a shared one if an exclusive node is
     * (held or waiting). Otherwise our node is created and deleted again unless it owns the
     * lock (first; shared: no exclusive node before it).
     */
    public Optional<Owned> tryAcquire(LockRequest request) {
        String parent = paths.parent(request.key());
        List<String> children = ops.children(parent, request.key());
        if (request.shared() ? LockPaths.anyExclusive(children) : !LockPaths.sortedLockNodes(children).isEmpty()) {
            return Optional.empty();
        }
        long requestedAt = System.nanoTime();
        Queued queued = enqueue(parent, request);
        long answeredAt = System.nanoTime();
        boolean owned = false;
        try {
            Place place = predecessor(parent, queued.node, queued.listing, request.key());
            owned = place.ahead() == null && lingering.remainingMillis(parent, place.markers(),
                    LingerMarkers.serverNowAtLeast(queued.node, answeredAt), request.key()) == 0;
            return owned ? Optional.of(new Owned(queued.node, requestedAt)) : Optional.empty();
        } finally {
            if (!owned) {
                deleteOurNode(queued.node, request.key());
            }
        }
    }

    /**
     * Queues and waits up to {@code wait} for our node to own the lock: an exclusive node
     * when it is first, a shared node when no exclusive node sorts before it.
     *
     * @throws InterruptedException if interrupted while waiting; our node is deleted first
     */
    public Optional<Owned> acquire(LockRequest request, Duration wait) throws InterruptedException {
        long requestedAt = System.nanoTime();
        long deadline = Deadlines.after(requestedAt, wait);
        String parent = paths.parent(request.key());
        Queued queued = enqueue(parent, request);
        long answeredAt = System.nanoTime();
        NodeRef node = queued.node;
        List<String> listing = queued.listing;
        boolean owned = false;
        String watched = null;
        PredecessorWatch unfired = null;
        try {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock '" + request.key() + "'");
                }
                Place place = predecessor(parent, node, listing, request.key());
                listing = null;
                long lingered = place.ahead() != null ? 0 : lingering.remainingMillis(parent, place.markers(),
                        LingerMarkers.serverNowAtLeast(node, answeredAt), request.key());
                if (place.ahead() == null && lingered == 0) {
                    owned = true;
                    return Optional.of(new Owned(node, requestedAt));
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                if (lingered > 0) {
                    // First in the queue, behind a hold left to linger past its session: wake when it
                    // ends, then list again (the waiters behind us keep watching their predecessors).
                    TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(lingered)));
                    requestedAt = System.nanoTime();
                    continue;
                }
                if (unfired != null) {
                    ops.unwatch(watched, unfired);
                    unfired = null;
                }
                watched = parent + "/" + place.ahead();
                PredecessorWatch watch = new PredecessorWatch(notifications, watched);
                long watchSentAt = System.nanoTime();
                boolean headGone;
                Stat head = ops.watchNode(watched, watch, request.key());
                if (head != null) {
                    unfired = watch;
                    headGone = watch.await(left) && watch.deleted();
                    if (watch.fired()) {
                        unfired = null;
                    }
                } else {
                    headGone = false; // already deleted when the watch request arrived: it may have lingered
                }
                // A head whose data changed was left to linger (LingerMarkers): its deletion does not free the
                // key, and the listing that follows shows its marker.
                if (headGone && place.aheadIsHead() && place.markers().isEmpty() && head.getVersion() == 0
                        && System.nanoTime() - watchSentAt <= request.lease().toNanos() / 4
                        && node.sessionId() == currentSession.getAsLong()) {
                    // The head, the only node ahead of ours in a listing taken after ours was created,
                    // is gone: nodes created since sort after ours, so ours is first. (Shared: the head
                    // was the only exclusive node ahead of ours, the rest are shared and stay so.) The
                    // server told our live session so after it received the watch request: validity
                    // counts from just before that request.
                    owned = true;
                    return Optional.of(new Owned(node, watchSentAt));
                }
                // Otherwise (a waiter ahead gave up, a connection event, a long wait) the next listing
                // proves ownership; validity counts from just before it.
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

    /** Our new node, and a listing of the queue taken right after it was created (or null). */
    private record Queued(NodeRef node, List<String> listing) {
    }

    /**
     * Creates our node and lists the queue in one round trip: the listing is sent right
     * behind the create on the same session, and ZooKeeper answers a session's requests in
     * order, so it normally shows our node (if it does not — Curator re-sent the create
     * after a lost connection — {@link #predecessor} lists again).
     *
     * <p>A key's parent is a container the server deletes once it is empty, so a key that
     * was idle for a while has none: the create then fails with NONODE, and the parent's
     * create is sent right before ours in the next round trip (after a second NONODE, the
     * root's ancestors too: the root is a container as well). Curator's own
     * {@code creatingParentContainersIfNeeded} would check every ancestor with its own
     * round trip, on Curator's single background thread.
     */
    private Queued enqueue(String parent, LockRequest request) {
        String key = request.key();
        for (int attempt = 0; ; attempt++) {
            long deadline = ops.deadline();
            List<String> containers = attempt == 0 ? List.of()
                    : attempt == 1 && rootExists ? List.of(parent) : paths.chain(parent);
            List<CompletableFuture<CuratorEvent>> parents = new ArrayList<>(containers.size());
            for (String container : containers) {
                parents.add(ops.createContainerAsync(container, key));
            }
            CompletableFuture<CuratorEvent> created = ops.createAsync(parent, LockPaths.nodeName(request.mode()), request.owner(),
                    key);
            List<String> listing = null;
            NodeRef node;
            try {
                CompletableFuture<CuratorEvent> listed;
                try {
                    listed = ops.childrenAsync(parent, key);
                } catch (RuntimeException e) {
                    listed = null; // the create went out; its answer decides, and the queue is listed again
                }
                if (listed != null) {
                    // The listing's answer comes last: waiting for it first wakes this thread once, not once per answer.
                    try {
                        listing = ops.childrenResult(listed, deadline, parent, key);
                    } catch (RuntimeException e) {
                        log.debug("The listing sent with the create under {} failed; listing again", parent, e);
                    }
                }
                // The create's answer is read before anything else can fail this call: a node it made
                // must be ours to delete, never left behind by an error about something else.
                node = ops.createResult(created, deadline, parent, key);
            } catch (RuntimeException e) {
                ops.abandonCreate(created);
                throw e;
            }
            if (node != null) {
                // The containers were only there to make the create succeed; whatever they answered
                // (an existing ancestor we may not create under answers NOAUTH) no longer matters.
                rootExists = true;
                return new Queued(node, listing);
            }
            // The parent is missing after all: a container that failed for a reason other than
            // "exists" or "its own parent is missing" (no permission) is why, and is reported.
            for (int i = 0; i < containers.size(); i++) {
                ops.containerResult(parents.get(i), deadline, containers.get(i), key);
            }
            if (attempt == 1) {
                rootExists = false;
            } else if (attempt >= MAX_CREATE_ATTEMPTS) {
                // Only a reaper deleting the parent between every create and the next could do this.
                throw Failures.keeper("create a lock node under " + parent, key,
                        org.apache.zookeeper.KeeperException.create(org.apache.zookeeper.KeeperException.Code.NONODE,
                                parent), ops.ensemble());
            }
        }
    }

    /**
     * The node our node waits for, or none if ours owns the lock, from {@code listing} if
     * it already shows our node, else from a new listing. An exclusive node waits for the
     * node just ahead of it (any mode); a shared node for the last exclusive node ahead of
     * it (the shared ones between hold or wait alongside ours).
     *
     * @throws dev.mortise.lock.LockBackendException if our node is gone or belongs to a
     *                                               session that ended: neither is ever taken
     *                                               for ownership
     */
    private Place predecessor(String parent, NodeRef node, List<String> listing, String key) {
        if (listing == null || !listing.contains(node.name())) {
            // Only a listing taken after our node existed says who is ahead of it.
            listing = ops.children(parent, key);
        }
        Place place = place(listing, node);
        // After an expiry the client reconnects with a new session while the server may still
        // show our old node for up to a session timeout; it will vanish, so it must not win.
        // Read after the listing: if the session is still ours now, it was when the server answered.
        if (place == null || node.sessionId() != currentSession.getAsLong()) {
            throw Failures.sessionEndedWhileWaiting(key, node.path());
        }
        return place;
    }

    /**
     * Where {@code node} stands in {@code listing} (its parent's children) by the queue's rule,
     * or {@code null} if the listing does not show it: an exclusive node waits for the node
     * just ahead of it (any mode), a shared node for the last exclusive node ahead of it.
     */
    static Place place(List<String> listing, NodeRef node) {
        List<String> queue = LockPaths.sortedLockNodes(listing);
        int at = queue.indexOf(node.name());
        if (at < 0) {
            return null;
        }
        List<String> markers = LingerMarkers.among(listing);
        if (!node.shared()) {
            return at == 0 ? new Place(null, false, markers) : new Place(queue.get(at - 1), at == 1, markers);
        }
        for (int i = at - 1; i >= 0; i--) {
            String ahead = queue.get(i);
            if (!LockPaths.isShared(ahead)) {
                return new Place(ahead, i == 0, markers);
            }
        }
        return new Place(null, false, markers);
    }

    /**
     * The node ours waits for ({@code null}: ours owns the lock unless a marker is in force),
     * whether it is the head of the queue (then its deletion alone makes ours the owner), and
     * the markers of lingering holds the listing showed.
     */
    record Place(String ahead, boolean aheadIsHead, List<String> markers) {
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
