package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * The creates of the queue: a key's lock node (ephemeral sequential, protected) and the
 * container nodes above it. Each is sent without waiting, so that more requests can be
 * pipelined around it on the same connection, and its answer is read separately. A create
 * never leaves a node of ours behind that nobody owns: a late answer, or a create the caller
 * gave up on, deletes its node. Thread-safe.
 */
final class NodeCreates {

    private static final Logger log = LoggerFactory.getLogger(NodeCreates.class);
    private static final String CREATE = "create a lock node under ";
    private static final String CONTAINER = "create the container node ";

    private final ZkCalls calls;
    private final NodeReads reads;
    private final NodeDeletes deletes;

    NodeCreates(ZkCalls calls, NodeReads reads, NodeDeletes deletes) {
        this.calls = calls;
        this.reads = reads;
        this.deletes = deletes;
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
    CompletableFuture<CuratorEvent> createAsync(String parent, String nodeName, String owner, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(key, CREATE, parent, () -> calls.client().create()
                .withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .inBackground((c, event) -> {
                    if (!result.complete(event) && event.getResultCode() == KeeperException.Code.OK.intValue()) {
                        log.debug("Deleting lock node {} whose create answered after the caller gave up", event.getName());
                        deletes.deleteLater(event.getName());
                    }
                })
                .forPath(parent + "/" + nodeName, owner.getBytes(StandardCharsets.UTF_8)));
        return result;
    }

    /**
     * The node {@link #createAsync} created, {@code null} if its parent does not exist, or a
     * failure naming the key; waits until {@code deadlineNanos}.
     */
    NodeRef createResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String parent, String key) {
        CuratorEvent event = calls.awaitUntil(pending, deadlineNanos, CREATE, parent, key);
        if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return null;
        }
        calls.check(event, key, CREATE, parent);
        Stat created = event.getStat();
        if (created == null || created.getCzxid() == 0) {
            // Curator found our node by its protected id after a lost answer: read the stat it did not pass on.
            created = reads.existsResult(reads.existsAsync(event.getName(), key), deadlineNanos, event.getName(), key);
            if (created == null) {
                throw Failures.keeper(CREATE + parent, key,
                        KeeperException.create(KeeperException.Code.NONODE, event.getName()), calls.ensemble());
            }
        }
        return new NodeRef(event.getName(), created.getCzxid(), created.getEphemeralOwner(), created.getCtime());
    }

    /**
     * Gives up on a {@link #createAsync} whose result the caller will not use (it failed on
     * the way): a node it made is deleted — now if its answer is already here, else by the
     * create's own callback when the answer comes. Never leaves a node of ours in the queue.
     */
    void abandonCreate(CompletableFuture<CuratorEvent> pending) {
        if (pending.completeExceptionally(new CancellationException("the acquire gave up on this create"))) {
            return; // the late answer deletes its node (createAsync's callback)
        }
        CuratorEvent event = pending.isCompletedExceptionally() ? null : pending.join();
        if (event != null && event.getResultCode() == KeeperException.Code.OK.intValue() && event.getName() != null) {
            log.debug("Deleting lock node {} of an acquire that failed after it was created", event.getName());
            deletes.deleteLater(event.getName());
        }
    }

    /**
     * Sends the create of a container node (a key's parent, the root or one of its
     * ancestors) without waiting: the server deletes a container once its last child is
     * gone. Sent right before a lock node's create, it makes the parent exist for it in the
     * same round trip.
     */
    CompletableFuture<CuratorEvent> createContainerAsync(String path, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(key, CONTAINER, path, () -> calls.client().create().withMode(CreateMode.CONTAINER)
                .inBackground((c, e) -> result.complete(e)).forPath(path));
        return result;
    }

    /** {@link #createContainerAsync} for each of {@code paths}, in order (the top first). */
    List<CompletableFuture<CuratorEvent>> createContainersAsync(List<String> paths, String key) {
        List<CompletableFuture<CuratorEvent>> pending = new ArrayList<>(paths.size());
        for (String path : paths) {
            pending.add(createContainerAsync(path, key));
        }
        return pending;
    }

    /** {@link #containerResult} for each of {@link #createContainersAsync}'s answers. */
    void containerResults(List<CompletableFuture<CuratorEvent>> pending, long deadlineNanos, List<String> paths,
                          String key) {
        for (int i = 0; i < paths.size(); i++) {
            containerResult(pending.get(i), deadlineNanos, paths.get(i), key);
        }
    }

    /**
     * Waits for {@link #createContainerAsync}: created, already there, or missing its own
     * parent (then the lock node's create fails too, and the caller creates the whole chain)
     * are fine; anything else (no permission) fails naming the key.
     */
    void containerResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String path, String key) {
        CuratorEvent event = calls.awaitUntil(pending, deadlineNanos, CONTAINER, path, key);
        int code = event.getResultCode();
        if (code != KeeperException.Code.NODEEXISTS.intValue() && code != KeeperException.Code.NONODE.intValue()) {
            calls.check(event, key, CONTAINER, path);
        }
    }
}
