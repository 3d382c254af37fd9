package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.CuratorFramework;

import java.time.Duration;

/**
 * The ZooKeeper calls the backend makes, by concern: how a call is sent and bounded
 * ({@link ZkCalls}), creates ({@link NodeCreates}), reads and setData ({@link NodeReads}),
 * watches ({@link NodeWatches}), deletes and what waits for the connection
 * ({@link NodeDeletes}), and multis sent past Curator ({@link Multis}). Every call is bounded
 * by the operation timeout and fails with {@link dev.mortise.lock.LockBackendException}, never
 * hangs; no request is queued while the connection is down. Thread-safe.
 */
public final class ZkOps {

    private final ZkCalls calls;
    private final NodeReads reads;
    private final NodeDeletes deletes;
    private final NodeCreates creates;
    private final NodeWatches watches;
    private final Multis multis;

    /**
     * @param ensemble how to name the servers in messages (the connect string)
     */
    public ZkOps(CuratorFramework client, Duration timeout, String ensemble) {
        this.calls = new ZkCalls(client, timeout, ensemble);
        this.reads = new NodeReads(calls);
        this.deletes = new NodeDeletes(calls);
        this.creates = new NodeCreates(calls, reads, deletes);
        this.watches = new NodeWatches(calls);
        this.multis = new Multis(calls);
    }

    /** Stops watching the connection; deletes still pending are left to the session's end. */
    public void close() {
        deletes.close();
    }

    /**
     * Deletes {@code path} and waits for the answer (guaranteed: Curator keeps retrying in the
     * background after we stop waiting).
     *
     * @return false if the node did not exist
     */
    public boolean delete(String path, String key) {
        return deletes.delete(path, key);
    }

    /**
     * Deletes the node of a hold of session {@code ownerSession}: true if it is gone by this request
     * (a resend after a connection change that finds it gone while that session lives counts: the
     * first send took it), false if the server no longer had it.
     */
    public boolean deleteHold(String path, String key, long ownerSession,
                              java.util.function.LongSupplier currentSession) {
        return deletes.deleteHold(path, key, ownerSession, currentSession);
    }

    /** One round trip: an exists on {@code path}. */
    public void ping(String path) {
        reads.ping(path);
    }

    ZkCalls calls() {
        return calls;
    }

    NodeReads reads() {
        return reads;
    }

    NodeDeletes deletes() {
        return deletes;
    }

    NodeCreates creates() {
        return creates;
    }

    NodeWatches watches() {
        return watches;
    }

    Multis multis() {
        return multis;
    }
}
