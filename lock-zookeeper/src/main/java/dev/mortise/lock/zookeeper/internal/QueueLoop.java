package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.LockRequest;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The one queue loop every acquisition of a single key goes through, whatever its kind
 * (exclusive, shared, permits): create our node and list the queue ({@link Enqueue}), ask the
 * {@link Admission} whether it is admitted, and if not watch what it names, wait, and look
 * again; delete our node unless it ends up owning the key. As Curator's {@code LockInternals}
 * with its driver, the admission is the only difference between kinds.
 *
 * <p><b>Evidence.</b> Every look is one listing taken after our node exists, checked against
 * our live session: a node the listing does not show, or of a session that ended, is never
 * taken for ownership (after an expiry the server may still show our old node for up to a
 * session timeout). A grant counts from the send of the request that produced the state it
 * rests on: the create for the first look (its listing was pipelined behind it), the listing
 * for later ones, or, when the watch event itself is the evidence, the watch request
 * ({@code watchSentAt}; see {@link #handedOver}).
 *
 * <p><b>Lingering holds.</b> An admitted node still waits while a lingering hold's marker is in
 * force ({@link LingerMarkers}): it sleeps until the marker's end, then looks again (the
 * waiters behind it keep watching their predecessors).
 *
 * <p>Nodes of attempts that fail, time out or are interrupted are deleted before the call
 * returns. Thread-safe; each acquisition runs on its caller's thread.
 */
final class QueueLoop {

    private static final Logger log = LoggerFactory.getLogger(QueueLoop.class);

    private final ZkOps ops;
    private final LockPaths paths;
    private final Enqueue enqueue;
    private final LongSupplier currentSession;
    private final LingerMarkers lingering;
    private final AtomicLong notifications = new AtomicLong();

    /** @param currentSession the id of the client's live session (0 if none) */
    QueueLoop(ZkOps ops, LockPaths paths, LongSupplier currentSession) {
        this.ops = ops;
        this.paths = paths;
        this.enqueue = new Enqueue(ops, paths);
        this.currentSession = currentSession;
        this.lingering = new LingerMarkers(ops);
    }

    /**
     * Queues a node for {@code request} and waits up to {@code wait} for {@code admission} to
     * admit it ({@link Duration#ZERO}: one look, no wait).
     *
     * @param interruptible whether an interrupt ends the wait (else the flag is left for the caller)
     * @throws InterruptedException if interrupted while waiting; our node is deleted first
     */
    Optional<Owned> acquire(LockRequest request, Admission admission, Duration wait, boolean interruptible)
            throws InterruptedException {
        return new Turn(request, admission, wait, interruptible).run();
    }

    /** Watch notifications received by waiters so far (for the herd measurement). */
    long notifications() {
        return notifications.get();
    }

    /**
     * Deletes our node. The delete waits for the answer without giving in to an interrupt (the
     * interrupt that ended the wait must not also cut the cleanup short) and sets the flag
     * again afterwards, so the caller still sees it.
     */
    void deleteOurNode(NodeRef node, String key) {
        try {
            ops.delete(node.path(), key);
        } catch (RuntimeException e) {
            // Guaranteed delete keeps retrying in the background; the session's end removes it at the latest.
            log.debug("Cleaning up lock node {} failed", node.path(), e);
        }
    }

    /**
     * How long the lingering holds' markers among {@code markers} keep our admitted node
     * waiting (0: none in force), by a lower bound of the server's clock from our node.
     */
    long lingeringMillis(String parent, List<String> markers, NodeRef node, long answeredAtNanos, String key) {
        return lingering.remainingMillis(parent, markers, MarkerFormat.serverNowAtLeast(node, answeredAtNanos), key);
    }

    /**
     * Where our node stands in {@code listing} ({@link QueueView#of}), checked as evidence: after
     * an expiry the client reconnects with a new session while the server may still show our old
     * node for up to a session timeout; it will vanish, so it must not win.
     *
     * @throws dev.mortise.lock.LockBackendException if the listing does not show our node, or it
     *                                               belongs to a session that ended
     */
    QueueView checkedView(String parent, NodeRef node, List<String> listing, long listedAt, Set<String> watchedBefore,
                          long roundDeadline, String key) {
        QueueView view = QueueView.of(parent, node, listing, listedAt, watchedBefore, roundDeadline);
        // Read after the listing: if the session is still ours now, it was when the server answered.
        if (view == null || node.sessionId() != currentSession.getAsLong()) {
            throw Failures.sessionEndedWhileWaiting(key, node.path());
        }
        return view;
    }

    /** One acquisition: its node, what it last listed, and the watches it keeps. */
    private final class Turn {

        private final LockRequest request;
        private final String key;
        private final String parent;
        private final Admission admission;
        private final long requestedAt;
        private final long deadline;
        private final boolean interruptible;
        private final QueueWatch watch = new QueueWatch(notifications);
        private NodeRef node;
        private long answeredAt;
        /** The listing to decide from next (the one sent with the create), or null: list again. */
        private List<String> listing;
        private boolean firstLook = true;
        /** The nodes whose watches the next look sets before its listing. */
        private Set<String> want = Set.of();

        Turn(LockRequest request, Admission admission, Duration wait, boolean interruptible) {
            this.request = request;
            this.key = request.key();
            this.parent = paths.parent(key);
            this.admission = admission;
            this.requestedAt = System.nanoTime();
            this.deadline = Deadlines.after(requestedAt, wait);
            this.interruptible = interruptible;
        }

        Optional<Owned> run() throws InterruptedException {
            Enqueue.Queued queued = enqueue.enqueue(parent, key, admission.nodeName(), admission.data());
            answeredAt = System.nanoTime();
            node = queued.node();
            listing = queued.listing();
            boolean owned = false;
            try {
                while (true) {
                    if (interruptible && Thread.interrupted()) {
                        throw new InterruptedException("interrupted while waiting for " + admission.waitingFor(key));
                    }
                    QueueView view = look();
                    Verdict verdict = admission.admit(view);
                    if (verdict.kind() == Verdict.Kind.LOOK_AGAIN) {
                        continue;
                    }
                    boolean admitted = verdict.kind() == Verdict.Kind.ADMITTED;
                    long lingered = admitted ? lingeringMillis(parent, view.markers(), node, answeredAt, key) : 0;
                    if (admitted && lingered == 0) {
                        owned = true;
                        admission.admitted(view);
                        return Optional.of(new Owned(node, view.listedAtNanos()));
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return Optional.empty();
                    }
                    if (lingered > 0) {
                        // Admitted, behind a hold left to linger past its session: wake when it ends, then look again.
                        TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(lingered)));
                        want = Set.of();
                        continue;
                    }
                    Owned handedOver = verdict.kind() == Verdict.Kind.WAIT_FOR_DELETION
                            ? awaitDeletion(verdict, view, left) : awaitChange(verdict, view, left);
                    if (handedOver != null) {
                        owned = true;
                        return Optional.of(handedOver);
                    }
                }
            } finally {
                for (String path : watch.armed()) {
                    ops.watches().unwatch(path, watch);
                }
                if (!owned) {
                    deleteOurNode(node, key);
                }
            }
        }

        /**
         * One pipelined round: the watches wanted, then the listing (unless the create's still
         * serves), then the reads the admission asks for.
         *
         * @throws dev.mortise.lock.LockBackendException if our node is gone or belongs to a
         *                                               session that ended
         */
        private QueueView look() {
            watch.clear();
            long roundDeadline = ops.calls().deadline();
            Map<String, CompletableFuture<CuratorEvent>> watches = new LinkedHashMap<>();
            for (String path : want) {
                if (watch.arm(path)) {
                    watches.put(path, ops.watches().watchAsync(path, watch, key));
                }
            }
            long listedAt = requestedAt;
            CompletableFuture<CuratorEvent> listed = null;
            if (listing == null || !listing.contains(node.name())) {
                // Only a listing taken after our node existed says who is ahead of it.
                listedAt = firstLook ? requestedAt : System.nanoTime();
                listed = ops.reads().childrenAsync(parent, key);
            }
            admission.prefetch(parent, node, key);
            for (Map.Entry<String, CompletableFuture<CuratorEvent>> set : watches.entrySet()) {
                if (ops.watches().watchResult(set.getValue(), roundDeadline, set.getKey(), key) == null) {
                    watch.disarm(set.getKey()); // already gone: no watch was set, the listing shows it
                }
            }
            Set<String> watchedBefore = watch.armed();
            if (listed != null) {
                listing = ops.reads().childrenResult(listed, roundDeadline, parent, key);
            }
            QueueView view = checkedView(parent, node, listing, listedAt, watchedBefore, roundDeadline, key);
            listing = null;
            firstLook = false;
            return view;
        }

        /**
         * Watches the one node ahead right after the listing and waits while it exists.
         *
         * @return our node, owned, if the watch event itself proves it ({@link #handedOver}); else null: look again
         */
        private Owned awaitDeletion(Verdict verdict, QueueView view, long left) throws InterruptedException {
            String target = verdict.watch().iterator().next();
            unwatchAllBut(watch.armed(), verdict.watch());
            watch.clear();
            watch.arm(target);
            long watchSentAt = System.nanoTime();
            Stat head = ops.watches().watchNode(target, watch, key);
            if (head == null) {
                watch.disarm(target); // already deleted when the watch request arrived: it may have lingered
                return null;
            }
            WatchedEvent event = watch.await(left);
            if (event != null) {
                watch.disarm(target); // the watch fired: nothing is left to remove
            }
            return handedOver(verdict, view, head, event, target, watchSentAt) ? new Owned(node, watchSentAt) : null;
        }

        /**
         * Whether the watch event alone proves ownership: the node ahead, the only one ahead of
         * ours in a listing taken after ours was created, is gone, so ours is first (nodes
         * created since sort after ours; shared: the rest ahead are shared and stay so). The
         * server told our live session so after it received the watch request, so validity
         * counts from just before that request — if the answer came soon enough after it (a
         * quarter of the lease) and the session is still ours. A head whose data changed was
         * left to linger (LingerMarkers): its deletion does not free the key, and the listing
         * that follows shows its marker.
         */
        private boolean handedOver(Verdict verdict, QueueView view, Stat head, WatchedEvent event, String target,
                                   long watchSentAt) {
            return QueueWatch.deleted(event, target) && verdict.handoff() && view.markers().isEmpty()
                    && head.getVersion() == 0 && System.nanoTime() - watchSentAt <= request.lease().toNanos() / 4
                    && node.sessionId() == currentSession.getAsLong();
        }

        /**
         * Waits for a change of the nodes named, if each was watched before the listing (any
         * change since fires); otherwise the next look sets the missing watches, then lists.
         *
         * @return null: look again
         */
        private Owned awaitChange(Verdict verdict, QueueView view, long left) throws InterruptedException {
            unwatchAllBut(view.watchedBefore(), verdict.watch());
            if (view.watchedBefore().containsAll(verdict.watch())) {
                watch.await(left);
            }
            want = verdict.watch();
            return null;
        }

        private void unwatchAllBut(Set<String> armed, Set<String> keep) {
            for (String path : armed) {
                if (!keep.contains(path)) {
                    ops.watches().unwatch(path, watch);
                    watch.disarm(path);
                }
            }
        }
    }
}
