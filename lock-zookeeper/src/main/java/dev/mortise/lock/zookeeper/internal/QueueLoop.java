package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.WaitDriver;
import dev.mortise.lock.spi.WaitSteps;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
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
 * ({@code watchSentAt}; see {@link QueueTurn#handedOver}).
 *
 * <p><b>Lingering holds.</b> An admitted node still waits while a lingering hold's marker is in
 * force ({@link LingerMarkers}): it sleeps until the marker's end, then looks again (the
 * waiters behind it keep watching their predecessors).
 *
 * <p><b>Waiting</b> is written once, as {@link WaitSteps} ({@link QueueTurn}): the blocking
 * {@code acquire} runs them on its caller's thread ({@link WaitDriver#await}), {@code acquireAsync}
 * on the shared asynchronous threads ({@link WaitDriver#start}), holding none while it sleeps: a
 * watch event completes the sleep's wake-up ({@link QueueWatch#wake}), a lingering hold's end is
 * a timed sleep.
 *
 * <p>Nodes of attempts that fail, time out, are interrupted or cancelled are deleted when the
 * wait ends ({@link WaitSteps#end}; before a blocking call returns). Thread-safe.
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

    /** Where a wait's steps run, which decides what an interrupt and a lost connection do to it. */
    enum Runs {
        /** On the caller's thread ({@link WaitDriver#await}); an interrupt found at a look ends the wait. */
        CALLER_INTERRUPTIBLE,
        /** On the caller's thread; an interrupt is left in the flag for the caller. */
        CALLER,
        /**
         * On the shared asynchronous threads ({@link WaitDriver#start}), which no step may hold
         * for long: a step that finds the connection down sleeps until it is back instead of
         * waiting for it inside a call, and a node left behind is deleted without waiting.
         */
        ASYNC
    }

    /**
     * The wait of one acquisition, as steps: queue a node for {@code request}, then wait up to
     * {@code wait} for {@code admission} to admit it ({@link Duration#ZERO}: one look, no wait).
     *
     * @param runs   where the steps run
     * @param grants makes the grant of our node once it owns the key
     */
    WaitSteps turn(LockRequest request, Admission admission, Duration wait, Runs runs,
                   Function<Owned, Grant> grants) {
        return new QueueTurn(this, ops, request, admission, wait, runs, grants);
    }

    /**
     * One look that never waits, on the caller's thread: {@link #turn} with no wait.
     *
     * @param runs {@link Runs#CALLER_INTERRUPTIBLE}: an interrupt found at the look ends it, after
     *             our node is deleted; {@link Runs#CALLER}: it is left in the flag
     * @throws InterruptedException only if {@link Runs#CALLER_INTERRUPTIBLE}
     */
    Optional<Grant> once(LockRequest request, Admission admission, Runs runs,
                         Function<Owned, Grant> grants) throws InterruptedException {
        return WaitDriver.await(turn(request, admission, Duration.ZERO, runs, grants), request.key());
    }

    /** The parent node of {@code key}'s queue. */
    String parentOf(String key) {
        return paths.parent(key);
    }

    /** A watcher for one acquisition, counted in {@link #notifications()}. */
    QueueWatch newWatch() {
        return new QueueWatch(notifications);
    }

    /** Creates our node and lists the queue ({@link Enqueue}). */
    Enqueue.Queued enqueue(String parent, String key, String nodeName, String data) {
        return enqueue.enqueue(parent, key, nodeName, data);
    }

    /** Whether {@code node} belongs to the client's live session. */
    boolean isLive(NodeRef node) {
        return node.sessionId() == currentSession.getAsLong();
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

    /** Deletes our node without waiting for the answer (once connected, if the connection is down). */
    void deleteOurNodeLater(NodeRef node) {
        ops.deletes().deleteLater(node.path());
    }

    /**
     * A future completed once the client is connected (at once if it is): what a step that found
     * the connection down sleeps on.
     */
    CompletableFuture<Void> connected() {
        CompletableFuture<Void> back = new CompletableFuture<>();
        ops.deletes().onceConnected(() -> back.complete(null));
        return back;
    }

    /** Whether a call sent now would first wait for the connection. */
    boolean disconnected() {
        return ops.calls().waitsForConnection();
    }

    /** The failure of a wait that found no connection for the operation timeout, as a call's would be. */
    RuntimeException noConnection(String key) {
        return Failures.timeout("reconnect while waiting", key, ops.calls().timeout(), ops.calls().ensemble());
    }

    /** The operation timeout, in nanoseconds. */
    long operationTimeoutNanos() {
        return ops.calls().timeout().toNanos();
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
        if (view == null || !isLive(node)) {
            throw Failures.sessionEndedWhileWaiting(key, node.path());
        }
        return view;
    }
}
