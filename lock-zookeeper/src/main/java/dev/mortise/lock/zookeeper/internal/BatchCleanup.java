package dev.mortise.lock.zookeeper.internal;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * What an {@link BatchAcquire} leaves behind, removed: the nodes of a refused or failed
 * batch (one multi, else one by one), the nodes of creates that answered after the caller
 * stopped waiting, and — when the creates' answer was lost with the connection — every node
 * named with the batch's protected prefix, found by listing the parents once the connection
 * is back. Thread-safe.
 */
final class BatchCleanup {

    private static final Logger log = LoggerFactory.getLogger(BatchCleanup.class);
    private static final String DELETE = "delete the lock nodes of a refused acquireAll under ";

    private final ZkOps ops;
    private final LockPaths paths;

    BatchCleanup(ZkOps ops, LockPaths paths) {
        this.ops = ops;
        this.paths = paths;
    }

    /** Whether a multi's result code says its answer was lost (it may have been applied). */
    static boolean isLost(int code) {
        return code == KeeperException.Code.CONNECTIONLOSS.intValue()
                || code == KeeperException.Code.OPERATIONTIMEOUT.intValue();
    }

    /**
     * Deletes the batch's nodes with one multi. If it fails (a node already gone with its
     * session, no answer), each node is deleted on its own, in the background and, while the
     * connection is down, once it is back.
     */
    void deleteAll(List<NodeRef> nodes, String key) {
        List<Op> deletes = new ArrayList<>(nodes.size());
        for (NodeRef node : nodes) {
            deletes.add(Op.delete(ops.multis().zkPath(node.path()), -1));
        }
        CompletableFuture<Multis.Answer> pending;
        try {
            pending = ops.multis().send(deletes, DELETE, paths.root(), key, late -> {
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
            if (ops.multis().result(pending, ops.calls().deadline(), DELETE, paths.root(), key).code()
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
            ops.deletes().deleteLater(node.path());
        }
    }

    /** The creates answered after the caller stopped waiting: nothing of them may stay. */
    void cleanUpLate(Multis.Answer late, List<String> parents, String prefix, String key) {
        if (late.code() == KeeperException.Code.OK.intValue() && late.results() != null) {
            for (int i = 0; i < parents.size() && i < late.results().size(); i++) {
                if (late.results().get(i) instanceof OpResult.CreateResult created) {
                    log.debug("Deleting lock node {} of an acquireAll whose create answered after the caller gave up",
                            created.getPath());
                    ops.deletes().deleteLater(parents.get(i) + "/" + LockPaths.name(created.getPath()));
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
    void sweepOnceConnected(List<String> parents, String prefix, String key) {
        ops.deletes().onceConnected(() -> {
            for (String parent : Set.copyOf(parents)) {
                ops.reads().childrenAsync(parent, key).thenAccept(event -> {
                    if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
                        for (String child : event.getChildren()) {
                            if (child.startsWith(prefix)) {
                                log.debug("Deleting lock node {}/{} of an acquireAll whose answer was lost", parent,
                                        child);
                                ops.deletes().deleteLater(parent + "/" + child);
                            }
                        }
                    }
                });
            }
        });
    }
}
