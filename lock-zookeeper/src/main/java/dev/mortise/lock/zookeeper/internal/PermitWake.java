package dev.mortise.lock.zookeeper.internal;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one watcher of a permit waiter, left on each node it watches (one or several): any
 * event wakes it (a deletion, a data change — an admission signal or a new stored count —
 * or a connection event), and the waiter then lists the queue again. A fired watch is gone
 * on the server, so its path is forgotten here and armed again if still wanted. Thread-safe:
 * events come on the client's event thread.
 */
final class PermitWake implements Watcher {

    private final AtomicLong notifications;
    private final Semaphore events = new Semaphore(0);
    private final Set<String> armed = ConcurrentHashMap.newKeySet();

    PermitWake(AtomicLong notifications) {
        this.notifications = notifications;
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == Event.EventType.DataWatchRemoved) {
            return; // our own removal of a watch nobody waits for (ZkOps.unwatch)
        }
        notifications.incrementAndGet();
        if (event.getType() != Event.EventType.None && event.getPath() != null) {
            armed.remove(event.getPath());
        }
        events.release();
    }

    /** Records that a watch on {@code path} is being set; false if one is already in force. */
    boolean arm(String path) {
        return armed.add(path);
    }

    /** Forgets {@code path} (its watch was not set, or was removed). */
    void disarm(String path) {
        armed.remove(path);
    }

    /** The paths whose watches are in force (a snapshot). */
    Set<String> armed() {
        return Set.copyOf(armed);
    }

    /** Forgets events that came before now (the listing sent next shows what they announced). */
    void clear() {
        events.drainPermits();
    }

    /** @return true if an event came within {@code nanos} */
    boolean await(long nanos) throws InterruptedException {
        return events.tryAcquire(nanos, TimeUnit.NANOSECONDS);
    }
}
