package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.CreateRequest;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * ZooKeeper multis sent on the client's own ZooKeeper handle, bypassing Curator: Curator's
 * transaction API neither creates with {@code create2}, which answers each node's stat, nor
 * reads. Paths are therefore ZooKeeper client paths ({@link #zkPath}: with Curator's
 * namespace; the ZooKeeper client adds the chroot). Thread-safe.
 */
final class Multis {

    private final ZkCalls calls;

    Multis(ZkCalls calls) {
        this.calls = calls;
    }

    /** A multi's answer: its result code and, when the server answered, one result per op. */
    record Answer(int code, List<OpResult> results) {
    }

    /**
     * Sends {@code ops} as one ZooKeeper multi without waiting. Never retried: an answer lost
     * with the connection is reported as {@code CONNECTIONLOSS}, and the caller, who named its
     * nodes, finds them itself. If {@code late} is given and the answer comes after the caller
     * gave up waiting ({@link #result} completed the future), {@code late} gets it.
     */
    CompletableFuture<Answer> send(List<Op> ops, String what, String path, String key, Consumer<Answer> late) {
        CompletableFuture<Answer> result = new CompletableFuture<>();
        calls.awaitConnected(what, path, key);
        ZooKeeper zk;
        try {
            zk = calls.client().getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw calls.notSent(key, what, path, e);
        }
        zk.multi(ops, (rc, p, ctx, results) -> {
            Answer answer = new Answer(rc, results);
            if (!result.complete(answer) && late != null) {
                late.accept(answer);
            }
        }, null);
        return result;
    }

    /** Waits for {@link #send} until {@code deadlineNanos}; fails with the usual timeout. */
    Answer result(CompletableFuture<Answer> pending, long deadlineNanos, String what, String path, String key) {
        return calls.awaitUntil(pending, deadlineNanos, what, path, key);
    }

    /**
     * The path the ZooKeeper client is given for {@code path}: with Curator's namespace in
     * front (the ZooKeeper client then adds the chroot).
     */
    String zkPath(String path) {
        String namespace = calls.client().getNamespace();
        return namespace == null || namespace.isEmpty() ? path : ZKPaths.fixForNamespace(namespace, path);
    }

    /**
     * A multi op that creates the ephemeral sequential node {@code path} (a client path) with
     * {@code data} and answers its stat ({@code create2}): Curator builds the create (its
     * namespace, the ACL its provider gives), which is then sent as create2, which Curator's
     * own transactions cannot.
     */
    Op ephemeralSequentialCreate2(String path, byte[] data) {
        CreateRequest request;
        try {
            request = (CreateRequest) calls.client().transactionOp().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath(path, data).get().toRequestRecord();
        } catch (Exception e) {
            throw new IllegalArgumentException("Cannot build the create of lock node " + path
                    + " (backend 'zookeeper'): " + e, e);
        }
        return Op.create(request.getPath(), request.getData(),
                CreateOptions.newBuilder(request.getAcl(), CreateMode.EPHEMERAL_SEQUENTIAL).build());
    }
}
