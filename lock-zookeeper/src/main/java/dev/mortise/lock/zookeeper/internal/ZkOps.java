package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Deadlines;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The ZooKeeper calls the backend makes, each bounded by the operation timeout whatever
 * the client's own retry policy and connection timeout say: every call runs in Curator's
 * background mode and we wait for its callback at most that long. Waiting here is
 * deliberately not interruptible (a round trip is short and bounded): an interrupt is
 * kept in the thread's flag for the caller to act on between calls, so a node we created
 * is never abandoned half-way.
 *
 * <p><b>No request is queued while the connection is down.</b> Curator keeps a background
 * request sent while disconnected until its connection timeout, then gives it up with two
 * ERROR log lines ("Background operation retry gave up"), and retries a guaranteed delete
 * the same way over and over: with an unreachable ensemble, every lock call, cleanup and
 * renewal would add its own pair. So a call waits for the connection (at most the
 * operation timeout) before it sends anything, and fails with the usual timeout if it does
 * not come; deletes that cannot be sent are kept and sent once it is back.
 */
public final class ZkOps {

    private static final Logger log = LoggerFactory.getLogger(ZkOps.class);

    private final CuratorFramework client;
    private final Duration timeout;
    private final String ensemble;
    /** Nodes to delete once the connection is back (a delete cannot be sent while it is down). */
    private final Set<String> pendingDeletes = ConcurrentHashMap.newKeySet();
    /** Clean-ups to run once the connection is back (they need to read before they delete). */
    private final Set<Runnable> pendingTasks = ConcurrentHashMap.newKeySet();
    private final ConnectionStateListener resend = (c, state) -> {
        if (state.isConnected()) {
            sendPendingDeletes();
            runPendingTasks();
        }
    };

    /**
     * @param ensemble how to name the servers in messages (the connect string)
     */
    public ZkOps(CuratorFramework client, Duration timeout, String ensemble) {
        this.client = client;
        this.timeout = timeout;
        this.ensemble = ensemble;
        client.getConnectionStateListenable().addListener(resend);
    }

    /** Stops watching the connection; deletes still pending are left to the session's end. */
    public void close() {
        client.getConnectionStateListenable().removeListener(resend);
    }

    public CuratorFramework client() {
        return client;
    }

    public Duration timeout() {
        return timeout;
    }

    /** How messages name the servers (the connect string). */
    public String ensemble() {
        return ensemble;
    }

    /**
     * Sends the create of an ephemeral sequential lock node {@code nodeName} (see
     * {@link LockPaths#nodeName}) under {@code parent} without
     * waiting, so that more requests can be pipelined around it on the same connection;
     * {@link #createResult} waits for the answer. Protected against lost create responses:
     * if the connection drops before the answer arrives, Curator finds the node by its
     * protected id instead of creating a second one. The parent is not created here (see
     * {@link #createContainerAsync}); the czxid comes from the create response.
     *
     * <p>If the answer comes after we gave up waiting, the late node is deleted at once,
     * so a timed-out create leaves nothing that would block the queue.
     */
    public CompletableFuture<CuratorEvent> createAsync(String parent, String nodeName, String owner, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        submit(key, "create a lock node under ", parent, () -> client.create()
                .withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .inBackground((c, event) -> {
                    if (!result.complete(event) && event.getResultCode() == KeeperException.Code.OK.intValue()) {
                        log.debug("Deleting lock node {} whose create answered after the caller gave up", event.getName());
                        deleteLater(event.getName());
                    }
                })
                .forPath(parent + "/" + nodeName, owner.getBytes(StandardCharsets.UTF_8)));
        return result;
    }

    /**
     * The node {@link #createAsync} created, {@code null} if its parent does not exist, or a
     * failure naming the key; waits until {@code deadlineNanos}.
     */
    public NodeRef createResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String parent, String key) {
        CuratorEvent event = awaitUntil(pending, deadlineNanos, "create a lock node under ", parent, key);
        if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return null;
        }
        check(event, key, "create a lock node under ", parent);
        Stat created = event.getStat();
        if (created == null || created.getCzxid() == 0) {
            // Curator found our node by its protected id after a lost answer: read the stat it did not pass on.
            created = existsResult(existsAsync(event.getName(), key), deadlineNanos, event.getName(), key);
            if (created == null) {
                throw Failures.keeper("create a lock node under " + parent, key,
                        KeeperException.create(KeeperException.Code.NONODE, event.getName()), ensemble);
            }
        }
        return new NodeRef(event.getName(), created.getCzxid(), created.getEphemeralOwner(), created.getCtime());
    }

    /**
     * Gives up on a {@link #createAsync} whose result the caller will not use (it failed on
     * the way): a node it made is deleted — now if its answer is already here, else by the
     * create's own callback when the answer comes. Never leaves a node of ours in the queue.
     */
    public void abandonCreate(CompletableFuture<CuratorEvent> pending) {
        if (pending.completeExceptionally(new CancellationException("the acquire gave up on this create"))) {
            return; // the late answer deletes its node (createAsync's callback)
        }
        CuratorEvent event = pending.isCompletedExceptionally() ? null : pending.join();
        if (event != null && event.getResultCode() == KeeperException.Code.OK.intValue() && event.getName() != null) {
            log.debug("Deleting lock node {} of an acquire that failed after it was created", event.getName());
            deleteLater(event.getName());
        }
    }

    /**
     * Sends the create of a container node (a key's parent, the root or one of its
     * ancestors) without waiting: the server deletes a container once its last child is
     * gone. Sent right before a lock node's create, it makes the parent exist for it in the
     * same round trip.
     */
    public CompletableFuture<CuratorEvent> createContainerAsync(String path, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        submit(key, "create the container node ", path, () -> client.create().withMode(CreateMode.CONTAINER)
                .inBackground((c, e) -> result.complete(e)).forPath(path));
        return result;
    }

    /**
     * Waits for {@link #createContainerAsync}: created, already there, or missing its own
     * parent (then the lock node's create fails too, and the caller creates the whole chain)
     * are fine; anything else (no permission) fails naming the key.
     */
    public void containerResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String path, String key) {
        CuratorEvent event = awaitUntil(pending, deadlineNanos, "create the container node ", path, key);
        int code = event.getResultCode();
        if (code != KeeperException.Code.NODEEXISTS.intValue() && code != KeeperException.Code.NONODE.intValue()) {
            check(event, key, "create the container node ", path);
        }
    }

    /** The children of {@code parent}; empty if it does not exist. */
    public List<String> children(String parent, String key) {
        return childrenResult(childrenAsync(parent, key), deadline(), parent, key);
    }

    /** Sends the listing of {@link #children} without waiting. */
    public CompletableFuture<CuratorEvent> childrenAsync(String parent, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        submit(key, "list ", parent, () -> client.getChildren().inBackground((c, e) -> result.complete(e))
                .forPath(parent));
        return result;
    }

    /** The answer to {@link #childrenAsync}: empty if the parent does not exist. */
    public List<String> childrenResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String parent,
                                       String key) {
        CuratorEvent event = awaitUntil(pending, deadlineNanos, "list ", parent, key);
        if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return List.of();
        }
        check(event, key, "list ", parent);
        return event.getChildren();
    }

    /**
     * Watches {@code path} for deletion. Uses getData, not exists: exists on a missing
     * node would leave a watch behind that nobody waits for.
     *
     * @return false if the node is already gone (no watch was set)
     */
    public boolean watch(String path, Watcher watcher, String key) {
        return watchNode(path, watcher, key) != null;
    }

    /**
     * {@link #watch}, answering the node's stat: a data version above 0 means its holder has
     * left it to linger ({@link LingerMarkers#leave}).
     *
     * @return the node's stat, or null if it is already gone (no watch was set)
     */
    public Stat watchNode(String path, Watcher watcher, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        submit(key, "watch ", path, () -> client.getData().usingWatcher(watcher)
                .inBackground((c, e) -> result.complete(e)).forPath(path));
        CuratorEvent event = awaitUntil(result, deadline(), "watch ", path, key);
        if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return null;
        }
        check(event, key, "watch ", path);
        return event.getStat();
    }

    /**
     * Deletes {@code path} and waits for the answer. Guaranteed: if the connection fails,
     * Curator keeps retrying in the background after we stop waiting.
     *
     * @return false if the node did not exist
     */
    public boolean delete(String path, String key) {
        try {
            awaitConnected("delete ", path, key);
        } catch (LockBackendException e) {
            pendingDeletes.add(path); // sent when the connection is back, as a guaranteed delete would be
            sendPendingDeletesIfConnected();
            throw e;
        }
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        submit(key, "delete ", path, () -> client.delete().guaranteed().inBackground((c, e) -> result.complete(e))
                .forPath(path));
        CuratorEvent event = awaitUntil(result, deadline(), "delete ", path, key);
        if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return false;
        }
        check(event, key, "delete ", path);
        return true;
    }

    /**
     * Forgets a watch nobody waits for any more (a waiter that timed out or was
     * interrupted), so repeated short waits on a long-held lock do not pile up watchers in
     * the client. Only this watcher, only locally: another waiter of this client may watch
     * the same node through the same server-side watch.
     */
    public void unwatch(String path, Watcher watcher) {
        if (!isConnected()) {
            // Queued while disconnected, the removal would end in Curator's ERROR lines; left alone, the
            // watcher fires once (at the latest when the connection is back or the session ends) and is dropped.
            log.debug("Not removing the watch on {} while disconnected", path);
            return;
        }
        try {
            client.watchers().remove(watcher).ofType(Watcher.WatcherType.Data).locally().quietly().inBackground()
                    .forPath(path);
        } catch (Exception e) {
            log.debug("Removing a watch on {} failed; it fires once and is dropped then", path, e);
        }
    }

    /** Deletes {@code path} without waiting (guaranteed; errors are logged). */
    public void deleteLater(String path) {
        if (!isConnected()) {
            pendingDeletes.add(path);
            sendPendingDeletesIfConnected();
            return;
        }
        try {
            client.delete().guaranteed().inBackground((c, e) -> {
                int code = e.getResultCode();
                if (code != KeeperException.Code.OK.intValue() && code != KeeperException.Code.NONODE.intValue()) {
                    log.debug("Background delete of {} answered {}", path, KeeperException.Code.get(code));
                }
            }).forPath(path);
        } catch (Exception e) {
            log.debug("Background delete of {} could not be sent; the session's end removes it", path, e);
        }
    }

    /** A multi's answer: its result code and, when the server answered, one result per op. */
    public record MultiAnswer(int code, List<OpResult> results) {
    }

    /**
     * Sends {@code ops} as one ZooKeeper multi without waiting, on the client's own ZooKeeper
     * handle (Curator's transaction API neither creates with {@code create2}, which answers
     * each node's stat, nor reads). Paths are ZooKeeper client paths ({@link #zkPath}: with
     * Curator's namespace; the ZooKeeper client adds the chroot). Never retried: an answer lost with the
     * connection is reported as {@code CONNECTIONLOSS}, and the caller, who named its nodes,
     * finds them itself. If {@code late} is given and the answer comes after the caller gave
     * up waiting ({@link #awaitUntil} completed the future), {@code late} gets it.
     */
    public CompletableFuture<MultiAnswer> multiAsync(List<Op> ops, String what, String path, String key,
                                                     Consumer<MultiAnswer> late) {
        CompletableFuture<MultiAnswer> result = new CompletableFuture<>();
        awaitConnected(what, path, key);
        ZooKeeper zk;
        try {
            zk = client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new LockBackendException("Could not send a request to " + what + path + Failures.forKey(key)
                    + " (backend 'zookeeper', ensemble " + ensemble + "): " + e
                    + ". Check that the CuratorFramework is started and not closed.", key, "zookeeper", e);
        }
        zk.multi(ops, (rc, p, ctx, results) -> {
            MultiAnswer answer = new MultiAnswer(rc, results);
            if (!result.complete(answer) && late != null) {
                late.accept(answer);
            }
        }, null);
        return result;
    }

    /** Waits for {@link #multiAsync} until {@code deadlineNanos}; fails with the usual timeout. */
    public MultiAnswer multiResult(CompletableFuture<MultiAnswer> pending, long deadlineNanos, String what,
                                   String path, String key) {
        while (true) {
            try {
                return Deadlines.awaitUninterruptibly(pending, deadlineNanos);
            } catch (TimeoutException e) {
                if (pending.completeExceptionally(e)) {
                    throw Failures.timeout(what + path, key, timeout, ensemble);
                }
            } catch (ExecutionException e) {
                throw Failures.timeout(what + path, key, timeout, ensemble);
            }
        }
    }

    /**
     * The path the ZooKeeper client is given for {@code path}: with Curator's namespace in
     * front (the ZooKeeper client then adds the chroot). For requests sent with
     * {@link #multiAsync}, which bypasses Curator.
     */
    public String zkPath(String path) {
        String namespace = client.getNamespace();
        return namespace == null || namespace.isEmpty() ? path : ZKPaths.fixForNamespace(namespace, path);
    }

    /**
     * A multi op that creates the ephemeral sequential node {@code path} (a client path) with
     * {@code data} and answers its stat ({@code create2}): Curator builds the create (its
     * namespace, the ACL its provider gives), which is then sent as create2, which Curator's
     * own transactions cannot.
     */
    public Op ephemeralSequentialCreate2(String path, byte[] data) {
        CreateRequest request;
        try {
            request = (CreateRequest) client.transactionOp().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath(path, data).get().toRequestRecord();
        } catch (Exception e) {
            throw new IllegalArgumentException("Cannot build the create of lock node " + path
                    + " (backend 'zookeeper'): " + e, e);
        }
        return Op.create(request.getPath(), request.getData(),
                CreateOptions.newBuilder(request.getAcl(), CreateMode.EPHEMERAL_SEQUENTIAL).build());
    }

    /**
     * Runs {@code task} now if the client is connected, else once the connection is back (a
     * session that ended instead takes the ephemeral nodes it would have looked for along).
     */
    public void onceConnected(Runnable task) {
        pendingTasks.add(task);
        if (isConnected()) {
            runPendingTasks();
        }
    }

    private void runPendingTasks() {
        for (Runnable task : pendingTasks) {
            if (pendingTasks.remove(task)) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.debug("A clean-up run after reconnecting failed; the session's end removes what it was for",
                            e);
                }
            }
        }
    }

    /** Starts a getData of {@code path} (no watch); the answer, with its stat, comes through the returned future. */
    public CompletableFuture<CuratorEvent> dataAsync(String path, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        submit(key, "read ", path, () -> client.getData().inBackground((c, e) -> result.complete(e)).forPath(path));
        return result;
    }

    /** The answer to {@link #dataAsync} (data and stat), {@code null} if the node is gone, or a failure naming the key. */
    public CuratorEvent dataResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String path, String key) {
        CuratorEvent event = awaitUntil(pending, deadlineNanos, "read ", path, key);
        if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return null;
        }
        check(event, key, "read ", path);
        return event;
    }

    /** Starts an exists call on {@code path}; the answer comes through the returned future. */
    public CompletableFuture<CuratorEvent> existsAsync(String path, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        submit(key, "check ", path, () -> client.checkExists().inBackground((c, e) -> result.complete(e))
                .forPath(path));
        return result;
    }

    /** One round trip: an exists on {@code path}. */
    public void ping(String path) {
        CuratorEvent event = awaitUntil(existsAsync(path, null), deadline(), "answer a ping with exists ", path, null);
        if (event.getResultCode() != KeeperException.Code.NONODE.intValue()) {
            check(event, null, "answer a ping with exists ", path);
        }
    }

    /** The answer to an exists call, or a failure naming the key. */
    public Stat existsResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String path, String key) {
        CuratorEvent event = awaitUntil(pending, deadlineNanos, "check ", path, key);
        if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return null;
        }
        check(event, key, "check ", path);
        return event.getStat();
    }

    // ---- plumbing ----------------------------------------------------------------------

    private boolean isConnected() {
        return client.getZookeeperClient().isConnected();
    }

    /** Sends the deletes kept while disconnected, if the connection came back in the meantime. */
    private void sendPendingDeletesIfConnected() {
        if (isConnected()) {
            sendPendingDeletes();
        }
    }

    private void sendPendingDeletes() {
        for (String path : pendingDeletes) {
            if (pendingDeletes.remove(path)) {
                deleteLater(path);
            }
        }
    }

    /**
     * Waits until the client is connected, at most the operation timeout, without giving in
     * to an interrupt (the flag is set again after). A client not started (or closed) is not
     * waited for: sending then fails with the reason.
     *
     * @throws LockBackendException (a timeout) if the connection does not come back in time
     */
    void awaitConnected(String what, String path, String key) {
        if (isConnected() || client.getState() != CuratorFrameworkState.STARTED) {
            return;
        }
        long deadline = deadline();
        boolean interrupted = false;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw Failures.timeout(what + path, key, timeout, ensemble);
                }
                try {
                    if (client.blockUntilConnected((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)),
                            TimeUnit.MILLISECONDS) && isConnected()) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private interface Call {
        Object send() throws Exception;
    }

    /** The deadline of a call sent now. */
    public long deadline() {
        return System.nanoTime() + timeout.toNanos();
    }

    // Messages are put together only on failure ("what" + "path"): the success path of a lock
    // cycle builds no strings.

    private void submit(String key, String what, String path, Call call) {
        awaitConnected(what, path, key);
        try {
            call.send();
        } catch (Exception e) {
            throw new LockBackendException("Could not send a request to " + what + path + Failures.forKey(key)
                    + " (backend 'zookeeper', ensemble " + ensemble + "): " + e
                    + ". Check that the CuratorFramework is started and not closed.", key, "zookeeper", e);
        }
    }

    /** Waits uninterruptibly until the deadline; restores the interrupt flag if one came. */
    CuratorEvent awaitUntil(CompletableFuture<CuratorEvent> result, long deadlineNanos, String what, String path,
                            String key) {
        while (true) {
            try {
                return Deadlines.awaitUninterruptibly(result, deadlineNanos);
            } catch (TimeoutException e) {
                // Completing it exceptionally marks the call abandoned; a late answer then cleans up after itself.
                // If the answer won that race, take it.
                if (result.completeExceptionally(e)) {
                    throw Failures.timeout(what + path, key, timeout, ensemble);
                }
            } catch (ExecutionException e) {
                throw Failures.timeout(what + path, key, timeout, ensemble);
            }
        }
    }

    private void check(CuratorEvent event, String key, String what, String path) {
        int code = event.getResultCode();
        if (code != KeeperException.Code.OK.intValue()) {
            throw Failures.keeper(what + path, key, KeeperException.create(KeeperException.Code.get(code),
                    event.getPath()), ensemble);
        }
    }
}
