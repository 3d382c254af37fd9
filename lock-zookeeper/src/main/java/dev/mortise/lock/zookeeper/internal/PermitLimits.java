package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Changes a semaphore's stored count ({@code setPermits}): the limit lives in the data of
 * every permit node ({@link PermitNodes}), so it is rewritten in each, in place. Every write
 * wakes the waiter watching that node, which then follows the new count. Thread-safe.
 */
public final class PermitLimits {

    private static final Logger log = LoggerFactory.getLogger(PermitLimits.class);
    private static final int SET_PERMITS_ROUNDS = 5;

    private final ZkOps ops;
    private final LockPaths paths;

    public PermitLimits(ZkOps ops, LockPaths paths) {
        this.ops = ops;
        this.paths = paths;
    }

    /**
     * Rewrites the stored count in every permit node of {@code key} (each read, then written
     * only if unchanged since; pipelined), then lists again for nodes created meanwhile with
     * the old count, a few rounds at most. With no permit node, nothing is stored and nothing
     * is written.
     */
    public void setPermits(String key, int limit) {
        String parent = paths.parent(key);
        Set<String> done = new HashSet<>();
        for (int round = 0; round < SET_PERMITS_ROUNDS; round++) {
            List<String> todo = new ArrayList<>();
            for (String node : LockPaths.sortedLockNodes(ops.reads().children(parent, key))) {
                if (PermitNodes.isPermit(node) && !done.contains(node)) {
                    todo.add(node);
                }
            }
            if (todo.isEmpty()) {
                return;
            }
            rewrite(parent, key, limit, todo, done);
        }
        log.debug("setPermits({}) for '{}' still found new permit nodes after {} rounds; their requests follow the "
                + "stored count of the earliest node", limit, key, SET_PERMITS_ROUNDS);
    }

    /** One round: reads {@code todo}, writes those with another limit, adds what is settled to {@code done}. */
    private void rewrite(String parent, String key, int limit, List<String> todo, Set<String> done) {
        long deadline = ops.calls().deadline();
        NodeReads reads = ops.reads();
        List<CompletableFuture<CuratorEvent>> pending = new ArrayList<>(todo.size());
        for (String node : todo) {
            pending.add(reads.dataAsync(parent + "/" + node, key));
        }
        Map<String, CompletableFuture<CuratorEvent>> writes = new LinkedHashMap<>();
        for (int i = 0; i < todo.size(); i++) {
            String path = parent + "/" + todo.get(i);
            CuratorEvent read = reads.dataResult(pending.get(i), deadline, path, key);
            if (read == null || PermitNodes.limitOf(read.getData()) == limit) {
                done.add(todo.get(i));
                continue;
            }
            Stat stat = read.getStat();
            byte[] data = PermitNodes.data(PermitNodes.countOf(todo.get(i)), limit,
                    PermitNodes.ownerOf(read.getData())).getBytes(StandardCharsets.UTF_8);
            writes.put(todo.get(i), reads.setDataAsync(path, data, stat.getVersion(), key));
        }
        for (Map.Entry<String, CompletableFuture<CuratorEvent>> write : writes.entrySet()) {
            String path = parent + "/" + write.getKey();
            if (reads.setDataResult(write.getValue(), deadline, path, key)) {
                done.add(write.getKey());
            } else if (reads.data(path, key) == null) {
                done.add(write.getKey()); // released
            } // else changed meanwhile (an admission signal): read and write it again next round
        }
    }
}
