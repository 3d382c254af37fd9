package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.LockRequest;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Several keys at once, all or nothing, in the lock queue's protocol: one multi creates every
 * part's ephemeral sequential node (exclusive or shared, named and stored exactly as a single
 * acquire makes it, so release, renewal, inspection and linger treat the nodes alike), and a
 * read-only multi sent right behind it on the same session lists every part's parent.
 * ZooKeeper answers a session's requests in order, so the listings show the new nodes: both
 * go in one round trip, two requests whatever the number of keys. Each part is then judged
 * exactly as a single acquisition's look is in the {@link QueueLoop}: the same evidence checks
 * ({@link QueueLoop#checkedView}), the same admission ({@link LockAdmission}: exclusive: first;
 * shared: no exclusive node before it), and no lingering hold's marker in force. If any part
 * is not admitted, one multi deletes every node of the batch and the answer is "busy".
 *
 * <p>The creates use {@code create2} (each answer carries the node's stat: its czxid is the
 * fencing token, its ephemeral owner the session), which Curator's transaction API cannot
 * send, so both multis go to the ZooKeeper handle directly ({@link Multis}) and are never
 * retried by Curator. The batch's nodes share one protected prefix ({@code _c_<uuid>-}, as
 * Curator's protection names a single acquire's node): when a create's answer is lost with
 * the connection, the parents are listed once it is back and every node with that prefix is
 * deleted ({@link BatchCleanup}). An answer that comes after the caller stopped waiting
 * deletes its nodes itself.
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

    /** What Curator's protection puts before a node's name; the uuid and a dash follow. */
    private static final String PROTECTED = "_c_";
    private static final String CREATE = "create the lock nodes of an acquireAll under ";

    private final ZkOps ops;
    private final LockPaths paths;
    private final QueueLoop loop;
    private final BatchCleanup cleanup;
    private final BatchListings listings;
    /** Whether the root existed at the last batch create: missing parents then need only their own creates. */
    private volatile boolean rootExists = true;

    /** @param queue the lock queue whose loop judges each part */
    public BatchAcquire(ZkOps ops, LockPaths paths, LockQueue queue) {
        this.ops = ops;
        this.paths = paths;
        this.loop = queue.loop();
        this.cleanup = new BatchCleanup(ops, paths);
        this.listings = new BatchListings(ops, paths, cleanup);
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
    public List<Owned> tryAcquireAll(List<LockRequest> requests) {
        String key = requests.get(0).key(); // messages name the first key; the root is the path
        String root = paths.root();
        List<String> parents = new ArrayList<>(requests.size());
        for (LockRequest request : requests) {
            parents.add(paths.parent(request.key()));
        }
        String prefix = PROTECTED + UUID.randomUUID() + "-";
        List<Op> creates = creates(requests, parents, prefix);
        List<String> containers = List.of();
        for (int attempt = 0; ; attempt++) {
            long deadline = ops.calls().deadline();
            List<CompletableFuture<CuratorEvent>> made = ops.creates().createContainersAsync(containers, key);
            long requestedAt = System.nanoTime();
            CompletableFuture<Multis.Answer> written = ops.multis().send(creates, CREATE, root, key,
                    late -> cleanup.cleanUpLate(late, parents, prefix, key));
            CompletableFuture<Multis.Answer> listed;
            try {
                listed = ops.multis().send(listings.listings(parents), BatchListings.LIST, root, key, null);
            } catch (RuntimeException e) {
                listed = null; // the creates went out; their answer decides, and the parents are listed again
            }
            Multis.Answer answer = ops.multis().result(written, deadline, CREATE, root, key);
            long answeredAt = System.nanoTime();
            if (answer.code() == KeeperException.Code.OK.intValue()) {
                rootExists = true;
                List<NodeRef> nodes = listings.nodes(answer, parents, key);
                return decide(requests, parents, nodes, listed, deadline, requestedAt, answeredAt);
            }
            failUnlessParentMissing(answer, parents, prefix, key);
            // A parent is missing: a container that failed for another reason than "exists" or "its own
            // parent is missing" (no permission) is why, and is reported.
            ops.creates().containerResults(made, deadline, containers, key);
            if (attempt >= Enqueue.MAX_CREATE_ATTEMPTS) {
                throw Failures.keeper(CREATE + root, key, KeeperException.create(KeeperException.Code.NONODE, root),
                        ops.calls().ensemble());
            }
            containers = containersToCreate(attempt, listed, parents, deadline, key);
        }
    }

    /** The create2 of every part's node, named with the batch's protected prefix. */
    private List<Op> creates(List<LockRequest> requests, List<String> parents, String prefix) {
        List<Op> creates = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            LockRequest request = requests.get(i);
            String path = parents.get(i) + "/" + prefix + LockPaths.nodeName(request.mode());
            creates.add(ops.multis().ephemeralSequentialCreate2(path, request.owner().getBytes(StandardCharsets.UTF_8)));
        }
        return creates;
    }

    /** Throws for a failed create multi, unless it failed because a parent is missing. */
    private void failUnlessParentMissing(Multis.Answer answer, List<String> parents, String prefix, String key) {
        int code = answer.code();
        if (BatchCleanup.isLost(code)) {
            // The creates may have been applied before the connection went: find them by their prefix.
            cleanup.sweepOnceConnected(parents, prefix, key);
            throw Failures.keeper(CREATE + paths.root(), key, KeeperException.create(KeeperException.Code.get(code)),
                    ops.calls().ensemble());
        }
        int failed = firstError(answer);
        if (failed != KeeperException.Code.NONODE.intValue()) {
            throw Failures.keeper(CREATE + paths.root(), key, KeeperException.create(KeeperException.Code.get(failed)),
                    ops.calls().ensemble());
        }
    }

    /** The containers to create before the next try: the missing parents, and the root's chain if it is gone too. */
    private List<String> containersToCreate(int attempt, CompletableFuture<Multis.Answer> listed, List<String> parents,
                                            long deadline, String key) {
        if (attempt >= 1) {
            rootExists = false;
        }
        Set<String> next = new LinkedHashSet<>();
        if (!rootExists) {
            next.addAll(paths.chain(paths.root()));
        }
        next.addAll(listings.missingParents(listed, parents, deadline, key));
        return List.copyOf(next);
    }

    /** Whether each created node owns its key; deletes them all unless every one does. */
    private List<Owned> decide(List<LockRequest> requests, List<String> parents, List<NodeRef> nodes,
                               CompletableFuture<Multis.Answer> listed, long deadline, long requestedAt,
                               long answeredAt) {
        boolean owned = false;
        try {
            List<List<String>> children = listings.children(listed, parents, deadline, requests.get(0).key());
            List<QueueView> views = new ArrayList<>(nodes.size());
            for (int i = 0; i < nodes.size(); i++) {
                // As a single acquire: a node the listing does not show, or of a session that ended, never wins.
                QueueView view = loop.checkedView(parents.get(i), nodes.get(i), children.get(i), requestedAt, Set.of(),
                        0, requests.get(i).key());
                if (LockAdmission.verdict(view).kind() != Verdict.Kind.ADMITTED) {
                    return List.of();
                }
                views.add(view);
            }
            for (int i = 0; i < nodes.size(); i++) {
                if (loop.lingeringMillis(parents.get(i), views.get(i).markers(), nodes.get(i), answeredAt,
                        requests.get(i).key()) > 0) {
                    return List.of();
                }
            }
            List<Owned> grants = new ArrayList<>(nodes.size());
            for (NodeRef node : nodes) {
                grants.add(new Owned(node, requestedAt));
            }
            owned = true;
            return grants;
        } finally {
            if (!owned) {
                cleanup.deleteAll(nodes, requests.get(0).key());
            }
        }
    }

    /** The code of the op that failed a multi (the others answer OK or RUNTIMEINCONSISTENCY). */
    private static int firstError(Multis.Answer answer) {
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
}
