package dev.mortise.lock.zookeeper.internal;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A one-shot watch on the node just ahead of ours. Any event wakes the waiter: a deletion
 * (our turn may have come), and also connection events (Disconnected, Expired), after
 * which the waiter must look again rather than trust a watch that may be gone.
 */
final class PredecessorWatch implements Watcher {

    private final CountDownLatch fired = new CountDownLatch(1);
    private final AtomicLong notifications;

    PredecessorWatch(AtomicLong notifications) {
        this.notifications = notifications;
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == Event.EventType.DataWatchRemoved) {
            return; // our own removal of a watch nobody waits for (ZkOps.unwatch)
        }
        notifications.incrementAndGet();
        fired.countDown();
    }

    /** @return true if the watch fired, false if the time ran out */
    boolean await(long nanos) throws InterruptedException {
        return fired.await(nanos, TimeUnit.NANOSECONDS);
    }
}
