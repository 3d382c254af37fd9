package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

import java.util.ArrayList;
import java.util.List;
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

    private final ZkCalls calls;

    WaitRecordNodes(ZkCalls calls) {
        this.calls = calls;
    }

    /** Sends the create of the ephemeral node {@code path}, its missing parents created as containers. */
    CompletableFuture<CuratorEvent> createAsync(String path, byte[] data) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(null, CREATE, path, () -> calls.client().create().creatingParentContainersIfNeeded()
                .withMode(CreateMode.EPHEMERAL).inBackground((c, e) -> result.complete(e)).forPath(path, data));
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
