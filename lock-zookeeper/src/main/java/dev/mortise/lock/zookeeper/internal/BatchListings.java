package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a batch's multis answer, read: the nodes its creates made (with their stats), every
 * part's queue from the read-only multi sent behind them, and which parents were missing when
 * the creates failed. Thread-safe.
 */
final class BatchListings {

    private static final Logger log = LoggerFactory.getLogger(BatchListings.class);
    static final String LIST = "list the queues of an acquireAll under ";
    private static final String READ = "read the lock nodes of an acquireAll under ";

    private final ZkOps ops;
    private final LockPaths paths;
    private final BatchCleanup cleanup;

    BatchListings(ZkOps ops, LockPaths paths, BatchCleanup cleanup) {
        this.ops = ops;
        this.paths = paths;
        this.cleanup = cleanup;
    }

    /** The read-only multi that lists every parent. */
    List<Op> listings(List<String> parents) {
        List<Op> reads = new ArrayList<>(parents.size());
        for (String parent : parents) {
            reads.add(Op.getChildren(ops.multis().zkPath(parent)));
        }
        return reads;
    }

    /**
     * The created nodes, from the creates' answers (create2: each with its stat). A ZooKeeper
     * client with a chroot drops the stats when it takes the chroot off the answers' paths; the
     * stats are then read with one more read-only multi (getData of every node). If that fails,
     * the nodes are deleted before the failure is thrown.
     */
    List<NodeRef> nodes(Multis.Answer answer, List<String> parents, String key) {
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
                reads.add(Op.getData(ops.multis().zkPath(path)));
            }
        }
        if (reads.isEmpty()) {
            return nodes;
        }
        boolean read = false;
        try {
            Multis.Answer stats = ops.multis().result(ops.multis().send(reads, READ, paths.root(), key, null),
                    ops.calls().deadline(), READ, paths.root(), key);
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
                cleanup.deleteAll(nodes, key);
            }
        }
    }

    private static NodeRef nodeRef(String path, Stat stat) {
        return new NodeRef(path, stat.getCzxid(), stat.getEphemeralOwner(), stat.getCtime());
    }

    /**
     * Every parent's children, from the read-only multi sent behind the creates; if it was not
     * sent or not understood (a server older than 3.6), from one getChildren per parent, pipelined.
     */
    List<List<String>> children(CompletableFuture<Multis.Answer> listed, List<String> parents, long deadline,
                                String key) {
        if (listed != null) {
            Multis.Answer answer = ops.multis().result(listed, deadline, LIST, paths.root(), key);
            List<List<String>> children = fromMulti(answer, parents.size());
            if (children != null) {
                return children;
            }
            log.debug("The read-only multi listing {} parents answered {}; listing them one by one", parents.size(),
                    KeeperException.Code.get(answer.code()));
        }
        List<CompletableFuture<CuratorEvent>> pending = new ArrayList<>(parents.size());
        for (String parent : parents) {
            pending.add(ops.reads().childrenAsync(parent, key));
        }
        List<List<String>> children = new ArrayList<>(parents.size());
        for (int i = 0; i < parents.size(); i++) {
            children.add(ops.reads().childrenResult(pending.get(i), deadline, parents.get(i), key));
        }
        return children;
    }

    /** The children the read-only multi listed, or null if it did not list them all. */
    private static List<List<String>> fromMulti(Multis.Answer answer, int parents) {
        if (answer.results() == null || answer.results().size() != parents) {
            return null;
        }
        List<List<String>> children = new ArrayList<>(parents);
        for (OpResult result : answer.results()) {
            if (!(result instanceof OpResult.GetChildrenResult got)) {
                return null;
            }
            children.add(got.getChildren());
        }
        return children;
    }

    /** The parents the listing sent behind a failed create found missing (all of them if it gave no answer). */
    List<String> missingParents(CompletableFuture<Multis.Answer> listed, List<String> parents, long deadline,
                                String key) {
        if (listed != null) {
            try {
                Multis.Answer answer = ops.multis().result(listed, deadline, LIST, paths.root(), key);
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
}
