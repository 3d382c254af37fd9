package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The reads of the backend (listings, getData, exists) and the one plain write (setData).
 * Each comes as a pair: {@code ...Async} sends without waiting, so that several requests
 * can be pipelined on the connection (ZooKeeper answers a session's requests in order), and
 * {@code ...Result} waits for the answer until a deadline. No watch is left by any of them
 * ({@link NodeWatches} sets watches). Thread-safe.
 */
final class NodeReads {

    private static final String LIST = "list ";
    private static final String READ = "read ";
    private static final String CHECK = "check ";
    private static final String WRITE = "write ";
    private static final String PING = "answer a ping with exists ";

    private final ZkCalls calls;

    NodeReads(ZkCalls calls) {
        this.calls = calls;
    }

    /** The children of {@code parent}; empty if it does not exist. */
    List<String> children(String parent, String key) {
        return childrenResult(childrenAsync(parent, key), calls.deadline(), parent, key);
    }

    /** Sends the listing of {@link #children} without waiting. */
    CompletableFuture<CuratorEvent> childrenAsync(String parent, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(key, LIST, parent, () -> calls.client().getChildren().inBackground((c, e) -> result.complete(e))
                .forPath(parent));
        return result;
    }

    /** The answer to {@link #childrenAsync}: empty if the parent does not exist. */
    List<String> childrenResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String parent,
                                String key) {
        CuratorEvent event = calls.presentOrNull(pending, deadlineNanos, LIST, parent, key);
        return event == null ? List.of() : event.getChildren();
    }

    /** Starts a getData of {@code path} (no watch); the answer, with its stat, comes through the returned future. */
    CompletableFuture<CuratorEvent> dataAsync(String path, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(key, READ, path, () -> calls.client().getData().inBackground((c, e) -> result.complete(e))
                .forPath(path));
        return result;
    }

    /** The answer to {@link #dataAsync} (data and stat), {@code null} if the node is gone, or a failure naming the key. */
    CuratorEvent dataResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String path, String key) {
        return calls.presentOrNull(pending, deadlineNanos, READ, path, key);
    }

    /** A getData of {@code path} sent now, waited for until the operation timeout: as {@link #dataResult}. */
    CuratorEvent data(String path, String key) {
        return dataResult(dataAsync(path, key), calls.deadline(), path, key);
    }

    /** Starts an exists call on {@code path}; the answer comes through the returned future. */
    CompletableFuture<CuratorEvent> existsAsync(String path, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(key, CHECK, path, () -> calls.client().checkExists().inBackground((c, e) -> result.complete(e))
                .forPath(path));
        return result;
    }

    /** The answer to an exists call: the stat, {@code null} if the node is gone, or a failure naming the key. */
    Stat existsResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String path, String key) {
        CuratorEvent event = calls.presentOrNull(pending, deadlineNanos, CHECK, path, key);
        return event == null ? null : event.getStat();
    }

    /** One round trip: an exists on {@code path}. */
    void ping(String path) {
        CuratorEvent event = calls.awaitUntil(existsAsync(path, null), calls.deadline(), PING, path, null);
        if (event.getResultCode() != KeeperException.Code.NONODE.intValue()) {
            calls.check(event, null, PING, path);
        }
    }

    /**
     * Sends a setData of {@code path} expecting {@code version} (-1: any), without waiting; the
     * answer's result code (OK, NONODE, BADVERSION, ...) comes through the returned future.
     */
    CompletableFuture<CuratorEvent> setDataAsync(String path, byte[] data, int version, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(key, WRITE, path, () -> calls.client().setData().withVersion(version)
                .inBackground((c, e) -> result.complete(e)).forPath(path, data));
        return result;
    }

    /**
     * The answer to {@link #setDataAsync}: true if written, false if the node is gone or had
     * another version; other errors fail naming the key.
     */
    boolean setDataResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String path, String key) {
        CuratorEvent event = calls.awaitUntil(pending, deadlineNanos, WRITE, path, key);
        int code = event.getResultCode();
        if (code == KeeperException.Code.NONODE.intValue() || code == KeeperException.Code.BADVERSION.intValue()) {
            return false;
        }
        calls.check(event, key, WRITE, path);
        return true;
    }
}
