package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockBackendException;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Deletes, and the clean-ups that must wait for the connection. A delete cannot be sent while
 * the connection is down (see {@link ZkCalls}: Curator would queue it and log ERROR lines), so
 * deletes asked for then are kept and sent once it is back ({@link WhenConnected}). Deletes
 * are guaranteed: once sent, Curator keeps retrying them in the background. Thread-safe.
 */
final class NodeDeletes {

    private static final Logger log = LoggerFactory.getLogger(NodeDeletes.class);

    private final ZkCalls calls;
    private final WhenConnected whenConnected;
    /** Nodes to delete once the connection is back (a delete cannot be sent while it is down). */
    private final Set<String> pendingDeletes = ConcurrentHashMap.newKeySet();
    private final Runnable sendPending = this::sendPendingDeletes;
    /**
     * Connection state changes seen so far. Curator resends a request whose connection broke before
     * its answer, so a delete that spans a change may have been applied by its first send.
     */
    private final AtomicLong connectionChanges = new AtomicLong();
    private final ConnectionStateListener countChanges = (c, state) -> connectionChanges.incrementAndGet();

    NodeDeletes(ZkCalls calls) {
        this.calls = calls;
        this.whenConnected = new WhenConnected(calls);
        calls.client().getConnectionStateListenable().addListener(countChanges);
    }

    /** Stops watching the connection; deletes still pending are left to the session's end. */
    void close() {
        calls.client().getConnectionStateListenable().removeListener(countChanges);
        whenConnected.close();
    }

    /**
     * Deletes the node of a hold of session {@code ownerSession} and waits for the answer: true if
     * it is gone by this request, false if the server no longer had it. A resend that finds no node
     * after the connection changed while the delete was out counts as gone by this request when the
     * node's session is still the client's ({@code currentSession}): an ephemeral node of a live
     * session goes only by a delete, so the first send took it, and answering "no longer had it"
     * would tell the owner of a loss that never happened.
     */
    boolean deleteHold(String path, String key, long ownerSession, java.util.function.LongSupplier currentSession) {
        long changesBefore = connectionChanges.get();
        if (delete(path, key)) {
            return true;
        }
        return connectionChanges.get() != changesBefore && ownerSession == currentSession.getAsLong();
    }

    /**
     * Deletes {@code path} and waits for the answer. Guaranteed: if the connection fails,
     * Curator keeps retrying in the background after we stop waiting.
     *
     * @return false if the node did not exist
     */
    boolean delete(String path, String key) {
        try {
            calls.awaitConnected("delete ", path, key);
        } catch (LockBackendException e) {
            keep(path); // sent when the connection is back, as a guaranteed delete would be
            throw e;
        }
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(key, "delete ", path, () -> calls.client().delete().guaranteed()
                .inBackground((c, e) -> result.complete(e)).forPath(path));
        return calls.presentOrNull(result, calls.deadline(), "delete ", path, key) != null;
    }

    /** Deletes {@code path} without waiting (guaranteed; errors are logged). */
    void deleteLater(String path) {
        if (!calls.isConnected()) {
            keep(path);
            return;
        }
        try {
            calls.client().delete().guaranteed().inBackground((c, e) -> {
                int code = e.getResultCode();
                if (code != KeeperException.Code.OK.intValue() && code != KeeperException.Code.NONODE.intValue()) {
                    log.debug("Background delete of {} answered {}", path, KeeperException.Code.get(code));
                }
            }).forPath(path);
        } catch (Exception e) {
            log.debug("Background delete of {} could not be sent; the session's end removes it", path, e);
        }
    }

    /**
     * Runs {@code task} now if the client is connected, else once the connection is back (a
     * session that ended instead takes the ephemeral nodes it would have looked for along).
     */
    void onceConnected(Runnable task) {
        whenConnected.run(task);
    }

    /** Keeps {@code path} to delete once connected (at once if the connection came back meanwhile). */
    private void keep(String path) {
        pendingDeletes.add(path);
        whenConnected.run(sendPending);
    }

    private void sendPendingDeletes() {
        for (String path : pendingDeletes) {
            if (pendingDeletes.remove(path)) {
                deleteLater(path);
            }
        }
    }
}
