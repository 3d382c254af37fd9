package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.WaitStep;
import dev.mortise.lock.spi.WaitSteps;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.data.Stat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One acquisition in the {@link QueueLoop}, as {@link WaitSteps}: its node, what it last listed,
 * and the watches it keeps. A step creates our node and lists (the first), or looks at the
 * queue again, asks the {@link Admission}, and either grants, runs out, or sleeps: on the
 * {@link QueueWatch}'s wake-up (a watch event completes it) while it waits for the nodes the
 * admission named, or for a set time while a lingering hold's marker is in force. The blocking
 * {@code acquire} and {@code acquireAsync} run these same steps ({@link dev.mortise.lock.spi.WaitDriver}).
 *
 * <p>The evidence rules are {@link QueueLoop}'s. Not thread-safe, and needs not be: the driver
 * calls one method at a time, each after the previous returned.
 */
final class QueueTurn implements WaitSteps {

    /** The longest a disconnection heard by the watch but not yet shown by the client is slept on. */
    private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final QueueLoop loop;
    private final ZkOps ops;
    private final LockRequest request;
    private final String key;
    private final String parent;
    private final Admission admission;
    private final Function<Owned, Grant> grants;
    private final long deadline;
    private final QueueLoop.Runs runs;
    private final QueueWatch watch;
    private NodeRef node;
    /** When the create (and the listing pipelined behind it) was sent: the first look's evidence. */
    private long createSentAt;
    private long answeredAt;
    /** The listing to decide from next (the one sent with the create), or null: list again. */
    private List<String> listing;
    private boolean firstLook = true;
    /** The nodes whose watches the next look sets before its listing. */
    private Set<String> want = Set.of();
    /** The deletion the current sleep waits for, or null if it waits for something else. */
    private Deletion awaited;
    /** Whether the last step found the connection down (asynchronous path), and since when. */
    private boolean offline;
    private long offlineSince;

    /** A watched node ahead whose deletion may hand the key over ({@link #handedOver}). */
    private record Deletion(Verdict verdict, QueueView view, Stat head, String target, long watchSentAt) {
    }

    /**
     * @param runs   where the steps run (what an interrupt and a lost connection do)
     * @param grants makes the grant of the node once it owns the key
     */
    QueueTurn(QueueLoop loop, ZkOps ops, LockRequest request, Admission admission, Duration wait,
              QueueLoop.Runs runs, Function<Owned, Grant> grants) {
        this.loop = loop;
        this.ops = ops;
        this.request = request;
        this.key = request.key();
        this.parent = loop.parentOf(key);
        this.admission = admission;
        this.grants = grants;
        this.deadline = Deadlines.after(System.nanoTime(), wait);
        this.runs = runs;
        this.watch = loop.newWatch();
    }

    /**
     * @throws InterruptedException only when {@link QueueLoop.Runs#CALLER_INTERRUPTIBLE}: the flag was
     *                              set at a look
     */
    @Override
    public WaitStep next() throws InterruptedException {
        if (awaited != null) {
            Owned handedOver = afterDeletionWait();
            if (handedOver != null) {
                return grant(handedOver);
            }
        }
        while (true) {
            WaitStep reconnecting = untilConnected();
            if (reconnecting != null) {
                return reconnecting;
            }
            if (node == null) {
                enqueue();
            }
            if (runs == QueueLoop.Runs.CALLER_INTERRUPTIBLE && Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for " + admission.waitingFor(key));
            }
            QueueView view = look();
            Verdict verdict = admission.admit(view);
            if (verdict.kind() == Verdict.Kind.LOOK_AGAIN) {
                continue;
            }
            boolean admitted = verdict.kind() == Verdict.Kind.ADMITTED;
            long lingered = admitted ? loop.lingeringMillis(parent, view.markers(), node, answeredAt, key) : 0;
            if (admitted && lingered == 0) {
                admission.admitted(view);
                return grant(new Owned(node, view.listedAtNanos()));
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return WaitStep.ranOut();
            }
            if (lingered > 0) {
                // Admitted, behind a hold left to linger past its session: wake when it ends, then look again.
                want = Set.of();
                return WaitStep.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(lingered)));
            }
            WaitStep sleep = verdict.kind() == Verdict.Kind.WAIT_FOR_DELETION
                    ? watchDeletion(verdict, view, left) : watchChange(verdict, view, left);
            if (sleep != null) {
                return sleep;
            }
        }
    }

    /**
     * Removes the watches left; deletes our node unless it owns the key: on the caller's thread
     * before the call returns, on the asynchronous path without waiting for the answer (the answer
     * is already out; a delete sent while the connection is down goes once it is back).
     */
    @Override
    public void end(boolean granted, Throwable failure) {
        for (String path : watch.armed()) {
            ops.watches().unwatch(path, watch);
        }
        if (!granted && node != null) {
            if (runs == QueueLoop.Runs.ASYNC) {
                loop.deleteOurNodeLater(node);
            } else {
                loop.deleteOurNode(node, key);
            }
        }
    }

    /**
     * On the asynchronous path, a step that finds the connection down sleeps until it is back
     * instead of waiting for it inside a call on one of the few shared threads (a lost connection
     * wakes every waiter of the client at once). Down: the client says so, or the watch heard a
     * disconnection that the client's own state may not show yet (then one sleep on the watch's
     * reconnection, at most {@link #RECHECK_NANOS}, before the client's state is trusted). As a call
     * would, it waits at most the operation timeout, then fails. The caller's thread waits inside
     * the call, as it always did.
     *
     * @return the sleep, or null: connected (or not asynchronous), go on
     * @throws dev.mortise.lock.LockBackendException if the connection stayed down for the operation timeout
     */
    private WaitStep untilConnected() {
        if (runs != QueueLoop.Runs.ASYNC) {
            return null;
        }
        CompletableFuture<Void> heard = watch.reconnection();
        boolean clientDown = loop.disconnected();
        if (!clientDown && (heard == null || offline)) {
            offline = false;
            watch.forgetDisconnection();
            return null;
        }
        long now = System.nanoTime();
        if (!offline) {
            offline = true;
            offlineSince = now;
        }
        long left = offlineSince + loop.operationTimeoutNanos() - now;
        if (left <= 0) {
            throw loop.noConnection(key);
        }
        return clientDown ? WaitStep.sleep(loop.connected(), left)
                : WaitStep.sleep(heard, Math.min(left, RECHECK_NANOS));
    }

    private void enqueue() {
        createSentAt = System.nanoTime();
        Enqueue.Queued queued = loop.enqueue(parent, key, admission.nodeName(), admission.data());
        answeredAt = System.nanoTime();
        node = queued.node();
        listing = queued.listing();
    }

    private WaitStep grant(Owned owned) {
        return WaitStep.granted(grants.apply(owned));
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
        long listedAt = createSentAt;
        CompletableFuture<CuratorEvent> listed = null;
        if (listing == null || !listing.contains(node.name())) {
            // Only a listing taken after our node existed says who is ahead of it.
            listedAt = firstLook ? createSentAt : System.nanoTime();
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
        QueueView view = loop.checkedView(parent, node, listing, listedAt, watchedBefore, roundDeadline, key);
        listing = null;
        firstLook = false;
        return view;
    }

    /**
     * Watches the one node ahead right after the listing and sleeps while it exists.
     *
     * @return the sleep, or null if the node was already gone: look again
     */
    private WaitStep watchDeletion(Verdict verdict, QueueView view, long left) {
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
        awaited = new Deletion(verdict, view, head, target, watchSentAt);
        return WaitStep.sleep(watch.wake(), left);
    }

    /** @return our node, owned, if the event that ended the sleep proves it ({@link #handedOver}); else null */
    private Owned afterDeletionWait() {
        Deletion deletion = awaited;
        awaited = null;
        WatchedEvent event = watch.event();
        if (event != null) {
            watch.disarm(deletion.target()); // the watch fired: nothing is left to remove
        }
        return handedOver(deletion, event) ? new Owned(node, deletion.watchSentAt()) : null;
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
    private boolean handedOver(Deletion deletion, WatchedEvent event) {
        return QueueWatch.deleted(event, deletion.target()) && deletion.verdict().handoff()
                && deletion.view().markers().isEmpty() && deletion.head().getVersion() == 0
                && System.nanoTime() - deletion.watchSentAt() <= request.lease().toNanos() / 4
                && loop.isLive(node);
    }

    /**
     * Sleeps until a change of the nodes named, if each was watched before the listing (any
     * change since fires); otherwise the next look sets the missing watches, then lists.
     *
     * @return the sleep, or null: look again at once
     */
    private WaitStep watchChange(Verdict verdict, QueueView view, long left) {
        unwatchAllBut(view.watchedBefore(), verdict.watch());
        want = verdict.watch();
        return view.watchedBefore().containsAll(verdict.watch()) ? WaitStep.sleep(watch.wake(), left) : null;
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
