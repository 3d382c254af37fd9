package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;

/**
 * The watches a waiter leaves on the nodes it depends on, and their removal. A watch is set
 * with getData, not exists: exists on a missing node would leave a watch behind that nobody
 * waits for, while getData on a missing node answers NONODE and leaves none. Thread-safe.
 */
final class NodeWatches {

    private static final Logger log = LoggerFactory.getLogger(NodeWatches.class);
    private static final String WATCH = "watch ";

    private final ZkCalls calls;

    NodeWatches(ZkCalls calls) {
        this.calls = calls;
    }

    /**
     * Sends a getData of {@code path} that leaves {@code watcher} on it, without waiting (so it can be
     * pipelined before a listing: the server then registers the watch before it answers the listing).
     * On a missing node the server answers NONODE and leaves no watch.
     */
    CompletableFuture<CuratorEvent> watchAsync(String path, Watcher watcher, String key) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(key, WATCH, path, () -> calls.client().getData().usingWatcher(watcher)
                .inBackground((c, e) -> result.complete(e)).forPath(path));
        return result;
    }

    /**
     * The answer to {@link #watchAsync}: the node's stat (a data version above 0 means its
     * holder has left it to linger, {@link LingerMarkers#leave}), or {@code null} if it is gone
     * (no watch was set).
     */
    Stat watchResult(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String path, String key) {
        CuratorEvent event = calls.presentOrNull(pending, deadlineNanos, WATCH, path, key);
        return event == null ? null : event.getStat();
    }

    /** {@link #watchAsync} and {@link #watchResult} within the operation timeout. */
    Stat watchNode(String path, Watcher watcher, String key) {
        return watchResult(watchAsync(path, watcher, key), calls.deadline(), path, key);
    }

    /**
     * Forgets a watch nobody waits for any more (a waiter that timed out or was
     * interrupted), so repeated short waits on a long-held lock do not pile up watchers in
     * the client. Only this watcher, only locally: another waiter of this client may watch
     * the same node through the same server-side watch.
     */
    void unwatch(String path, Watcher watcher) {
        if (!calls.isConnected()) {
            // Queued while disconnected, the removal would end in Curator's ERROR lines; left alone, the
            // watcher fires once (at the latest when the connection is back or the session ends) and is dropped.
            log.debug("Not removing the watch on {} while disconnected", path);
            return;
        }
        try {
            calls.client().watchers().remove(watcher).ofType(Watcher.WatcherType.Data).locally().quietly()
                    .inBackground().forPath(path);
        } catch (Exception e) {
            log.debug("Removing a watch on {} failed; it fires once and is dropped then", path, e);
        }
    }
}
