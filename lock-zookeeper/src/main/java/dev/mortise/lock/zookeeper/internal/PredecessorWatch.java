package dev.mortise.lock.zookeeper.internal;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A one-shot watch on the node just ahead of ours. Any event wakes the waiter: a deletion
 * (our turn may have come), and also connection events (Disconnected, Expired), after
 * which the waiter must look again rather than trust a watch that may be gone. The first
 * event decides {@link #deleted()}.
 */
final class PredecessorWatch implements Watcher {

    private final CountDownLatch fired = new CountDownLatch(1);
    private final AtomicLong notifications;
    private final String path;
    private volatile boolean deleted;

    PredecessorWatch(AtomicLong notifications, String path) {
        this.notifications = notifications;
        this.path = path;
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == Event.EventType.DataWatchRemoved) {
            return; // our own removal of a watch nobody waits for (ZkOps.unwatch)
        }
        notifications.incrementAndGet();
        // Events come one at a time on the client's event thread: only the first one is recorded.
        if (fired.getCount() > 0) {
            deleted = event.getType() == Event.EventType.NodeDeleted && path.equals(event.getPath());
            fired.countDown();
        }
    }

    /** Whether an event came. */
    boolean fired() {
        return fired.getCount() == 0;
    }

    /** Whether the first event was the deletion of the watched node (not a connection event). */
    boolean deleted() {
        return deleted;
    }

    /** @return true if the watch fired, false if the time ran out */
    boolean await(long nanos) throws InterruptedException {
        return fired.await(nanos, TimeUnit.NANOSECONDS);
    }
}
