package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.LockRequest;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Several keys at once, all or nothing, in the queue protocol of {@link LockQueue}: one
 * multi creates every part's ephemeral sequential node (exclusive or shared, named and
 * stored exactly as a single acquire makes it, so release, renewal, inspection and linger
 * treat the nodes alike), and a read-only multi sent right behind it on the same session
 * lists every part's parent. ZooKeeper answers a session's requests in order, so the
 * listings show the new nodes: both go in one round trip, two requests whatever the number
 * of keys. Each part then owns its key by the queue's rule (exclusive: first; shared: no
 * exclusive node before it; and no lingering hold's marker in force). If any part does not,
 * one multi deletes every node of the batch and the answer is "busy".
 *
 * <p>The creates use {@code create2} (each answer carries the node's stat: its czxid is the
 * fencing token, its ephemeral owner the session), which Curator's transaction API cannot
 * send, so both multis go to the ZooKeeper handle directly and are never retried by
 * Curator. The batch's nodes share one protected prefix ({@code _c_<uuid>-}, as Curator's
 * protection names a single acquire's node): when a create's answer is lost with the
 * connection, the parents are listed once it is back and every node with that prefix is
 * deleted. An answer that comes after the caller stopped waiting deletes its nodes itself.
 *
 * <p>A key's parent is a container the server reaps when empty. A create under a missing
 * parent fails the whole multi with NONODE; the listing sent behind it shows which parents
 * are missing, and the next round trip sends their creates (and, if the root is missing
 * too, its chain) right before the multi again, as a single acquire does.
 *
 * <p>Thread-safe. Needs a ZooKeeper 3.6+ server (read-only multi); on an older one the
 * listings are asked with one getChildren per parent, pipelined.
 */
public final class BatchAcquire {

    private static final Logger log = LoggerFactory.getLogger(BatchAcquire.class);

    /** Creates before giving up on parents that keep vanishing (as {@link LockQueue}). */
    private static final int MAX_CREATE_ATTEMPTS = 5;
    /** What Curator's protection puts before a node's name; the uuid and a dash follow. */
    private static final String PROTECTED = "_c_";
    private static final String CREATE = "create the lock nodes of an acquireAll under ";
    private static final String LIST = "list the queues of an acquireAll under ";
    private static final String READ = "read the lock nodes of an acquireAll under ";
    private static final String DELETE = "delete the lock nodes of a refused acquireAll under ";

    private final ZkOps ops;
    private final LockPaths paths;
    private final LongSupplier currentSession;
    private final LingerMarkers lingering;
    /** Whether the root existed at the last batch create: missing parents then need only their own creates. */
    private volatile boolean rootExists = true;

    /** @param currentSession the id of the client's live session (0 if none) */
    public BatchAcquire(ZkOps ops, LockPaths paths, LongSupplier currentSession) {
        this.ops = ops;
        this.paths = paths;
        this.currentSession = currentSession;
        this.lingering = new LingerMarkers(ops);
    }

    /**
     * One all-or-nothing attempt at {@code requests} (distinct keys) that never waits for a
     * lock.
     *
     * @return one owned node per request, in request order; an empty list if any key was
     *         busy (then none of the batch's nodes is left on the server)
     * @throws dev.mortise.lock.LockBackendException if the server did not answer in time or
     *                                               refused; whatever the batch may have
     *                                               created is deleted (at the latest once the
     *                                               connection is back)
     */
    public List<LockQueue.Owned> tryAcquireAll(List<LockRequest> requests) {
        String key = requests.get(0).key(); // messages name the first key; the root is the path
        String root = paths.root();
        List<String> parents = new ArrayList<>(requests.size());
        for (LockRequest request : requests) {
            parents.add(paths.parent(request.key()));
        }
        String prefix = PROTECTED + UUID.randomUUID() + "-";
        List<Op> creates = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            LockRequest request = requests.get(i);
            String path = parents.get(i) + "/" + prefix + LockPaths.nodeName(request.mode());
            creates.add(ops.ephemeralSequentialCreate2(path, request.owner().getBytes(StandardCharsets.UTF_8)));
        }
        List<String> containers = List.of();
        for (int attempt = 0; ; attempt++) {
            long deadline = ops.deadline();
            List<CompletableFuture<CuratorEvent>> made = new ArrayList<>(containers.size());
            for (String container : containers) {
                made.add(ops.createContainerAsync(container, key));
            }
            long requestedAt = System.nanoTime();
            CompletableFuture<ZkOps.MultiAnswer> written = ops.multiAsync(creates, CREATE, root, key,
                    late -> cleanUpLate(late, parents, prefix, key));
            CompletableFuture<ZkOps.MultiAnswer> listed;
            try {
                listed = ops.multiAsync(listings(parents), LIST, root, key, null);
            } catch (RuntimeException e) {
                listed = null; // the creates went out; their answer decides, and the parents are listed again
            }
            ZkOps.MultiAnswer answer = ops.multiResult(written, deadline, CREATE, root, key);
            long answeredAt = System.nanoTime();
            int code = answer.code();
            if (code == KeeperException.Code.OK.intValue()) {
                rootExists = true;
                return decide(requests, parents, nodes(answer, parents, key), listed, deadline, requestedAt,
                        answeredAt);
            }
            if (isLost(code)) {
                // The creates may have been applied before the connection went: find them by their prefix.
                sweepOnceConnected(parents, prefix, key);
                throw Failures.keeper(CREATE + root, key, KeeperException.create(KeeperException.Code.get(code)),
                        ops.ensemble());
            }
            int failed = firstError(answer);
            if (failed != KeeperException.Code.NONODE.intValue()) {
                throw Failures.keeper(CREATE + root, key, KeeperException.create(KeeperException.Code.get(failed)),
                        ops.ensemble());
            }
            // A parent is missing: a container that failed for another reason than "exists" or "its own
            // parent is missing" (no permission) is why, and is reported.
            for (int i = 0; i < containers.size(); i++) {
                ops.containerResult(made.get(i), deadline, containers.get(i), key);
            }
            if (attempt >= MAX_CREATE_ATTEMPTS) {
                throw Failures.keeper(CREATE + root, key, KeeperException.create(KeeperException.Code.NONODE, root),
                        ops.ensemble());
            }
            if (attempt >= 1) {
                rootExists = false;
            }
            Set<String> next = new LinkedHashSet<>();
            if (!rootExists) {
                next.addAll(paths.chain(root));
            }
            next.addAll(missingParents(listed, parents, deadline, key));
            containers = List.copyOf(next);
        }
    }

    /** Whether each created node owns its key; deletes them all unless every one does. */
    private List<LockQueue.Owned> decide(List<LockRequest> requests, List<String> parents, List<NodeRef> nodes,
                                         CompletableFuture<ZkOps.MultiAnswer> listed, long deadline,
                                         long requestedAt, long answeredAt) {
        boolean owned = false;
        try {
            List<List<String>> children = children(listed, parents, deadline, requests.get(0).key());
            List<LockQueue.Place> places = new ArrayList<>(nodes.size());
            for (int i = 0; i < nodes.size(); i++) {
                NodeRef node = nodes.get(i);
                LockQueue.Place place = LockQueue.place(children.get(i), node);
                // As a single acquire: a node the listing does not show, or of a session that ended, never wins.
                if (place == null || node.sessionId() != currentSession.getAsLong()) {
                    throw Failures.sessionEndedWhileWaiting(requests.get(i).key(), node.path());
                }
                if (place.ahead() != null) {
                    return List.of();
                }
                places.add(place);
            }
            for (int i = 0; i < nodes.size(); i++) {
                NodeRef node = nodes.get(i);
                if (lingering.remainingMillis(parents.get(i), places.get(i).markers(),
                        LingerMarkers.serverNowAtLeast(node, answeredAt), requests.get(i).key()) > 0) {
                    return List.of();
                }
            }
            List<LockQueue.Owned> grants = new ArrayList<>(nodes.size());
            for (NodeRef node : nodes) {
                grants.add(new LockQueue.Owned(node, requestedAt));
            }
            owned = true;
            return grants;
        } finally {
            if (!owned) {
                deleteAll(nodes, requests.get(0).key());
            }
        }
    }

    /**
     * The created nodes, from the creates' answers (create2: each with its stat). A ZooKeeper
     * client with a chroot drops the stats when it takes the chroot off the answers' paths; the
     * stats are then read with one more read-only multi (getData of every node). If that fails,
     * the nodes are deleted before the failure is thrown.
     */
    private List<NodeRef> nodes(ZkOps.MultiAnswer answer, List<String> parents, String key) {
        List<NodeRef> nodes = new ArrayList<>(parents.size());
        List<Op> reads = new ArrayList<>();
        List<OpResult> results = answer.results();
        for (int i = 0; i < parents.size(); i++) {
            OpResult.CreateResult created = (OpResult.CreateResult) results.get(i);
            // The answer's path carries the namespace (and maybe the chroot); the name is what we need.
            String path = parents.get(i) + "/" + LockPaths.name(created.getPath());
            Stat stat = created.getStat();
            nodes.add(stat == null ? new NodeRef(path, 0, 0) : nodeRef(path, stat));
            if (stat == null) {
                reads.add(Op.getData(ops.zkPath(path)));
            }
        }
        if (reads.isEmpty()) {
            return nodes;
        }
        boolean read = false;
        try {
            ZkOps.MultiAnswer stats = ops.multiResult(ops.multiAsync(reads, READ, paths.root(), key, null),
                    ops.deadline(), READ, paths.root(), key);
            int at = 0;
            for (int i = 0; i < nodes.size(); i++) {
                if (nodes.get(i).czxid() != 0) {
                    continue;
                }
                OpResult result = stats.results() == null ? null : stats.results().get(at++);
                if (!(result instanceof OpResult.GetDataResult got)) {
                    // Gone already (its session ended) or not readable: never taken for ownership.
                    throw Failures.sessionEndedWhileWaiting(key, nodes.get(i).path());
                }
                nodes.set(i, nodeRef(nodes.get(i).path(), got.getStat()));
            }
            read = true;
            return nodes;
        } finally {
            if (!read) {
                deleteAll(nodes, key);
            }
        }
    }

    private static NodeRef nodeRef(String path, Stat stat) {
        return new NodeRef(path, stat.getCzxid(), stat.getEphemeralOwner(), stat.getCtime());
    }

    private List<Op> listings(List<String> parents) {
        List<Op> reads = new ArrayList<>(parents.size());
        for (String parent : parents) {
            reads.add(Op.getChildren(ops.zkPath(parent)));
        }
        return reads;
    }

    /**
     * Every parent's children, from the read-only multi sent behind the creates; if it was not
     * sent or not understood (a server older than 3.6), from one getChildren per parent, pipelined.
     */
    private List<List<String>> children(CompletableFuture<ZkOps.MultiAnswer> listed, List<String> parents,
                                        long deadline, String key) {
        if (listed != null) {
            ZkOps.MultiAnswer answer = ops.multiResult(listed, deadline, LIST, paths.root(), key);
            if (answer.results() != null && answer.results().size() == parents.size()) {
                List<List<String>> children = new ArrayList<>(parents.size());
                for (OpResult result : answer.results()) {
                    if (!(result instanceof OpResult.GetChildrenResult got)) {
                        children = null;
                        break;
                    }
                    children.add(got.getChildren());
                }
                if (children != null) {
                    return children;
                }
            }
            log.debug("The read-only multi listing {} parents answered {}; listing them one by one", parents.size(),
                    KeeperException.Code.get(answer.code()));
        }
        List<CompletableFuture<CuratorEvent>> pending = new ArrayList<>(parents.size());
        for (String parent : parents) {
            pending.add(ops.childrenAsync(parent, key));
        }
        List<List<String>> children = new ArrayList<>(parents.size());
        for (int i = 0; i < parents.size(); i++) {
            children.add(ops.childrenResult(pending.get(i), deadline, parents.get(i), key));
        }
        return children;
    }

    /** The parents the listing sent behind a failed create found missing (all of them if it gave no answer). */
    private List<String> missingParents(CompletableFuture<ZkOps.MultiAnswer> listed, List<String> parents,
                                        long deadline, String key) {
        if (listed != null) {
            try {
                ZkOps.MultiAnswer answer = ops.multiResult(listed, deadline, LIST, paths.root(), key);
                if (answer.results() != null && answer.results().size() == parents.size()) {
                    List<String> missing = new ArrayList<>();
                    for (int i = 0; i < parents.size(); i++) {
                        if (answer.results().get(i) instanceof OpResult.ErrorResult error
                                && error.getErr() == KeeperException.Code.NONODE.intValue()) {
                            missing.add(parents.get(i));
                        }
                    }
                    if (!missing.isEmpty()) {
                        return missing;
                    }
                }
            } catch (RuntimeException e) {
                log.debug("The listing sent with the batch's creates failed; creating every parent", e);
            }
        }
        return parents;
    }

    /** The code of the op that failed a multi (the others answer OK or RUNTIMEINCONSISTENCY). */
    private static int firstError(ZkOps.MultiAnswer answer) {
        if (answer.results() != null) {
            for (OpResult result : answer.results()) {
                if (result instanceof OpResult.ErrorResult error) {
                    int code = error.getErr();
                    if (code != KeeperException.Code.OK.intValue()
                            && code != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                        return code;
                    }
                }
            }
        }
        return answer.code();
    }

    private static boolean isLost(int code) {
        return code == KeeperException.Code.CONNECTIONLOSS.intValue()
                || code == KeeperException.Code.OPERATIONTIMEOUT.intValue();
    }

    /**
     * Deletes the batch's nodes with one multi. If it fails (a node already gone with its
     * session, no answer), each node is deleted on its own, in the background and, while the
     * connection is down, once it is back.
     */
    private void deleteAll(List<NodeRef> nodes, String key) {
        List<Op> deletes = new ArrayList<>(nodes.size());
        for (NodeRef node : nodes) {
            deletes.add(Op.delete(ops.zkPath(node.path()), -1));
        }
        CompletableFuture<ZkOps.MultiAnswer> pending;
        try {
            pending = ops.multiAsync(deletes, DELETE, paths.root(), key, late -> {
                if (late.code() != KeeperException.Code.OK.intValue()) {
                    deleteEach(nodes);
                }
            });
        } catch (RuntimeException e) {
            log.debug("Could not send the delete of a refused acquireAll's lock nodes; deleting them one by one", e);
            deleteEach(nodes);
            return;
        }
        try {
            if (ops.multiResult(pending, ops.deadline(), DELETE, paths.root(), key).code()
                    != KeeperException.Code.OK.intValue()) {
                deleteEach(nodes);
            }
        } catch (RuntimeException e) {
            // Not answered in time: its late answer deletes them one by one if it failed.
            log.debug("The delete of a refused acquireAll's lock nodes did not answer in time", e);
        }
    }

    private void deleteEach(List<NodeRef> nodes) {
        for (NodeRef node : nodes) {
            ops.deleteLater(node.path());
        }
    }

    /** The creates answered after the caller stopped waiting: nothing of them may stay. */
    private void cleanUpLate(ZkOps.MultiAnswer late, List<String> parents, String prefix, String key) {
        if (late.code() == KeeperException.Code.OK.intValue() && late.results() != null) {
            for (int i = 0; i < parents.size() && i < late.results().size(); i++) {
                if (late.results().get(i) instanceof OpResult.CreateResult created) {
                    log.debug("Deleting lock node {} of an acquireAll whose create answered after the caller gave up",
                            created.getPath());
                    ops.deleteLater(parents.get(i) + "/" + LockPaths.name(created.getPath()));
                }
            }
        } else if (isLost(late.code())) {
            sweepOnceConnected(parents, prefix, key);
        }
    }

    /**
     * Once the connection is back, lists each parent and deletes the nodes named with the
     * batch's prefix: creates whose answer was lost may have been applied. (If the session
     * ended instead, the server removed them with it.)
     */
    private void sweepOnceConnected(List<String> parents, String prefix, String key) {
        ops.onceConnected(() -> {
            for (String parent : Set.copyOf(parents)) {
                ops.childrenAsync(parent, key).thenAccept(event -> {
                    if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
                        for (String child : event.getChildren()) {
                            if (child.startsWith(prefix)) {
                                log.debug("Deleting lock node {}/{} of an acquireAll whose answer was lost", parent,
                                        child);
                                ops.deleteLater(parent + "/" + child);
                            }
                        }
                    }
                });
            }
        });
    }
}
