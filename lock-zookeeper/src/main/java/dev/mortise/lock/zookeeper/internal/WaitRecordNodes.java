package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The ZooKeeper calls of the wait records ({@link ZkWaitRecords}), each sent without waiting so
 * that the calls for many holder ids are pipelined on the connection (ZooKeeper answers a
 * session's requests in order): one round trip for all. Answers are result codes; the codes a
 * caller expects (the node is gone, exists, or changed) are its to handle, any other fails with a
 * {@link dev.mortise.lock.LockBackendException} naming the backend. Thread-safe.
 */
final class WaitRecordNodes {

    static final int OK = KeeperException.Code.OK.intValue();
    static final int NONODE = KeeperException.Code.NONODE.intValue();
    static final int NODEEXISTS = KeeperException.Code.NODEEXISTS.intValue();
    static final int BADVERSION = KeeperException.Code.BADVERSION.intValue();

    private static final String CREATE = "create the wait record ";
    private static final String DELETE = "delete the wait record ";
    private static final String WRITE = "write the wait record ";
    /** Rounds of a write whose nodes other clients keep deleting or creating before it gives up. */
    private static final int ROUNDS = 5;

    private final ZkCalls calls;
    private final NodeReads reads;
    private final NodeCreates creates;

    WaitRecordNodes(ZkOps ops) {
        this.calls = ops.calls();
        this.reads = ops.reads();
        this.creates = ops.creates();
    }

    /** What a record's next write sends. */
    private enum Write { SET, CREATE, CREATE_WITH_PARENTS }

    /**
     * Writes {@code data} to every node of {@code recordPaths}, replacing what each had: a setData
     * first (the common case, a rewrite: one round trip), a create of the ephemeral node where it is
     * missing, and the containers of {@code chain} (the top first) created in the same round trip
     * when its parent is missing too. A node deleted or created by another client in between is
     * written again, for a few rounds at most.
     */
    void writeAll(List<String> recordPaths, byte[] data, List<String> chain, long deadlineNanos) {
        Map<String, Write> writes = new LinkedHashMap<>();
        recordPaths.forEach(path -> writes.put(path, Write.SET));
        for (int round = 0; !writes.isEmpty(); round++) {
            if (round == ROUNDS) {
                throw Failures.keeper(CREATE + chain.get(chain.size() - 1), null,
                        KeeperException.create(KeeperException.Code.NODEEXISTS), calls.ensemble());
            }
            boolean parents = writes.containsValue(Write.CREATE_WITH_PARENTS);
            List<CompletableFuture<CuratorEvent>> containers = parents ? creates.createContainersAsync(chain, null)
                    : List.of();
            List<String> sentPaths = new ArrayList<>(writes.keySet());
            List<CompletableFuture<CuratorEvent>> pending = new ArrayList<>(sentPaths.size());
            for (String path : sentPaths) {
                pending.add(writes.get(path) == Write.SET ? reads.setDataAsync(path, data, -1, null) : createAsync(path, data));
            }
            if (parents) {
                creates.containerResults(containers, deadlineNanos, chain, null);
            }
            List<Integer> codes = codes(pending, sentPaths, deadlineNanos, WRITE, NONODE, NODEEXISTS);
            Map<String, Write> next = new LinkedHashMap<>();
            for (int i = 0; i < sentPaths.size(); i++) {
                int code = codes.get(i);
                if (code == NODEEXISTS) {
                    next.put(sentPaths.get(i), Write.SET);
                } else if (code == NONODE) {
                    next.put(sentPaths.get(i), writes.get(sentPaths.get(i)) == Write.SET ? Write.CREATE
                            : Write.CREATE_WITH_PARENTS);
                }
            }
            writes.clear();
            writes.putAll(next);
        }
    }

    /** Sends the create of the ephemeral node {@code path} (its parent is not created here). */
    private CompletableFuture<CuratorEvent> createAsync(String path, byte[] data) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(null, CREATE, path, () -> calls.client().create().withMode(CreateMode.EPHEMERAL)
                .inBackground((c, e) -> result.complete(e)).forPath(path, data));
        return result;
    }

    /** Sends the delete of {@code path} if it still has {@code version}. */
    CompletableFuture<CuratorEvent> deleteAsync(String path, int version) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(null, DELETE, path, () -> calls.client().delete().withVersion(version)
                .inBackground((c, e) -> result.complete(e)).forPath(path));
        return result;
    }

    /**
     * Waits for every answer until {@code deadlineNanos}: the result codes, in order; a code that is
     * neither OK nor one of {@code expected} fails naming {@code what} and the path.
     */
    List<Integer> codes(List<CompletableFuture<CuratorEvent>> pending, List<String> paths, long deadlineNanos,
                        String what, int... expected) {
        List<Integer> codes = new ArrayList<>(pending.size());
        for (int i = 0; i < pending.size(); i++) {
            CuratorEvent event = calls.awaitUntil(pending.get(i), deadlineNanos, what, paths.get(i), null);
            int code = event.getResultCode();
            if (!isAny(code, expected)) {
                calls.check(event, null, what, paths.get(i));
            }
            codes.add(code);
        }
        return codes;
    }

    private static boolean isAny(int code, int... expected) {
        for (int candidate : expected) {
            if (code == candidate) {
                return true;
            }
        }
        return false;
    }
}
