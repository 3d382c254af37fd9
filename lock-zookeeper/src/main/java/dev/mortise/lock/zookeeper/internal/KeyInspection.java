package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.KeyState;
import org.apache.curator.framework.api.CuratorEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Reads what ZooKeeper records about one key, for
 * {@link dev.mortise.lock.spi.LockBackend#inspect}: one listing of the key's parent, then one
 * getData per holding node and per lingering-hold marker, pipelined (one more round trip).
 *
 * <p>Holders follow the queue's own rule ({@link LockAdmission}): the first node if it is
 * exclusive, else the shared nodes before the first exclusive one; each is reported with the
 * owner stored as its data and its czxid as the token. A hold is bound to its session, so it
 * has no remaining lease on the server, unless it was left to linger: then its marker
 * ({@link LingerMarkers}) says when it ends. A marker in force whose node is gone (its client
 * closed) holds the key by itself, as every acquirer treats it: it is then the holder (the
 * marker does not record the mode; it excludes everyone, so it is reported exclusive, or
 * shared when several such markers are in force), and every queued node waits. Every other
 * queued node is a waiter.
 *
 * <p>Read-only: no node is created, changed, deleted or watched (an expired marker is left
 * for the next acquirer to delete). ZooKeeper gives clients no clock, so a marker's end
 * ({@code mtime} plus its linger) is measured against this process's wall clock, never taken
 * as earlier than the newest server time the reads showed. Thread-safe.
 */
public final class KeyInspection {

    private final ZkOps ops;
    private final LockPaths paths;

    public KeyInspection(ZkOps ops, LockPaths paths) {
        this.ops = ops;
        this.paths = paths;
    }

    public KeyState inspect(String key) {
        String parent = paths.parent(key);
        for (int attempt = 1; ; attempt++) {
            KeyState state = readOnce(parent, key, attempt == 3);
            if (state != null) {
                return state;
            }
        }
    }

    /**
     * @param last whether to answer even if a holding node vanished between the listing and its read
     * @return null if one did (released, or its session ended): the listing is stale, list again
     */
    private KeyState readOnce(String parent, String key, boolean last) {
        long deadline = ops.calls().deadline();
        List<String> children = ops.reads().childrenResult(ops.reads().childrenAsync(parent, key), deadline, parent,
                key);
        List<String> queue = LockPaths.sortedLockNodes(children);
        List<String> holding = holding(queue);
        List<String> markers = MarkerFormat.among(children);
        List<CompletableFuture<CuratorEvent>> nodeReads = new ArrayList<>(holding.size());
        for (String node : holding) {
            nodeReads.add(ops.reads().dataAsync(parent + "/" + node, key));
        }
        List<CompletableFuture<CuratorEvent>> markerReads = new ArrayList<>(markers.size());
        for (String marker : markers) {
            markerReads.add(ops.reads().dataAsync(parent + "/" + marker, key));
        }
        List<CuratorEvent> nodes = new ArrayList<>(holding.size());
        long nodesCreated = 0; // the newest server time the nodes' reads showed (their ctime)
        for (int i = 0; i < holding.size(); i++) {
            CuratorEvent node = ops.reads().dataResult(nodeReads.get(i), deadline, parent + "/" + holding.get(i), key);
            if (node == null) {
                if (!last) {
                    drain(markerReads, markers, parent, deadline, key);
                    return null;
                }
                continue;
            }
            nodes.add(node);
            nodesCreated = Math.max(nodesCreated, node.getStat().getCtime());
        }
        if (!holding.isEmpty() && PermitNodes.isPermit(holding.get(0)) && !nodes.isEmpty()) {
            // A semaphore: the leading permit nodes whose counts fit the stored count (the earliest's) hold.
            int admitted = Math.min(nodes.size(), PermitNodes.admitted(holding, Math.max(storedCount(nodes), 1)));
            nodes = new ArrayList<>(nodes.subList(0, admitted));
            holding = holding.subList(0, Math.max(admitted, 1));
        }
        List<CuratorEvent> markerData = drain(markerReads, markers, parent, deadline, key);
        long serverNow = nodesCreated;
        for (CuratorEvent marker : markerData) {
            if (marker != null) {
                serverNow = Math.max(serverNow, marker.getStat().getMtime());
            }
        }
        serverNow = Math.max(serverNow, System.currentTimeMillis());
        return KeyStateReport.of(queue, holding, nodes, markers, markerData, serverNow);
    }

    /** The stored count of a semaphore: the first limit its holding nodes' data carries (-1 if none). */
    private static int storedCount(List<CuratorEvent> nodes) {
        int stored = -1;
        for (CuratorEvent node : nodes) {
            stored = PermitNodes.limitOf(node.getData());
            if (stored > 0) {
                break;
            }
        }
        return stored;
    }

    /** The answers to the markers' reads, null where a marker is gone. */
    private List<CuratorEvent> drain(List<CompletableFuture<CuratorEvent>> reads, List<String> markers, String parent,
                                     long deadline, String key) {
        List<CuratorEvent> answers = new ArrayList<>(reads.size());
        for (int i = 0; i < reads.size(); i++) {
            answers.add(ops.reads().dataResult(reads.get(i), deadline, parent + "/" + markers.get(i), key));
        }
        return answers;
    }

    /**
     * The nodes that hold by {@link LockQueue}'s rule, among {@code queue} (in sequence order):
     * the first alone if it is exclusive, else the shared nodes before the first exclusive one.
     */
    private static List<String> holding(List<String> queue) {
        if (queue.isEmpty()) {
            return List.of();
        }
        if (!LockPaths.isShared(queue.get(0))) {
            return List.of(queue.get(0));
        }
        List<String> readers = new ArrayList<>();
        for (String node : queue) {
            if (!LockPaths.isShared(node)) {
                break;
            }
            readers.add(node);
        }
        return readers;
    }
}
