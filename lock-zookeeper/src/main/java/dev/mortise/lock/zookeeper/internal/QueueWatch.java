package dev.mortise.lock.zookeeper.internal;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one watcher of a waiting acquisition, left on each node it waits for (one or several).
 * Any event wakes the waiter: a deletion (its turn may have come), a data change (an admission
 * signal, a new stored count, a hold left to linger), and also connection events
 * (Disconnected, Expired), after which the waiter must look again rather than trust a watch
 * that may be gone. A watch that fired for its node is gone on the server, so its path is
 * forgotten here and armed again if still wanted. The first event since {@link #clear}
 * completes {@link #wake()}, the future the waiter's sleep ends on (on either driver: a blocked
 * caller's thread, or the asynchronous wait's timer and callbacks, no thread held). It also
 * keeps the last connection state it heard ({@link #reconnection()}), which the asynchronous wait
 * sleeps on rather than waiting for the connection inside a call. Thread-safe: events come on the
 * client's event thread.
 */
final class QueueWatch implements Watcher {

    private final AtomicLong notifications;
    /** Completed with the first event since the last {@link #clear}. */
    private final AtomicReference<CompletableFuture<WatchedEvent>> first =
            new AtomicReference<>(new CompletableFuture<>());
    private final Set<String> armed = ConcurrentHashMap.newKeySet();
    /** Completed when the connection is heard back; null unless a disconnection was the last heard. */
    private final AtomicReference<CompletableFuture<Void>> reconnected = new AtomicReference<>();

    /** @param notifications counts the events received (what the herd test measures) */
    QueueWatch(AtomicLong notifications) {
        this.notifications = notifications;
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == Event.EventType.DataWatchRemoved) {
            return; // our own removal of a watch nobody waits for (NodeWatches.unwatch)
        }
        notifications.incrementAndGet();
        if (event.getType() != Event.EventType.None && event.getPath() != null) {
            armed.remove(event.getPath());
        } else if (event.getType() == Event.EventType.None) {
            heard(event.getState()); // before the wake-up: the woken waiter reads it
        }
        first.get().complete(event);
    }

    /**
     * Every watcher of the client hears every connection event, in order, on the event thread,
     * possibly before the client's own state shows it: a disconnection starts a reconnection to
     * wait for, any other state ends it.
     */
    private void heard(Event.KeeperState state) {
        if (state == Event.KeeperState.Disconnected) {
            reconnected.compareAndSet(null, new CompletableFuture<>());
        } else {
            CompletableFuture<Void> back = reconnected.getAndSet(null);
            if (back != null) {
                back.complete(null);
            }
        }
    }

    /**
     * When the last connection event this watch heard was a disconnection: completes once it hears
     * the connection back. Null otherwise (then the client's own state says whether it is connected).
     */
    CompletableFuture<Void> reconnection() {
        return reconnected.get();
    }

    /** Forgets a disconnection heard (the client's own state shows the connection up since). */
    void forgetDisconnection() {
        reconnected.set(null);
    }

    /** Records that a watch on {@code path} is being set; false if one is already in force. */
    boolean arm(String path) {
        return armed.add(path);
    }

    /** Forgets {@code path} (its watch was not set, fired, or was removed). */
    void disarm(String path) {
        armed.remove(path);
    }

    /** The paths whose watches are in force (a snapshot). */
    Set<String> armed() {
        return Set.copyOf(armed);
    }

    /** Forgets events that came before now (what is looked at next shows what they announced). */
    void clear() {
        first.set(new CompletableFuture<>());
    }

    /** Completes with the first event since {@link #clear}: what a waiter's sleep ends on. */
    CompletableFuture<WatchedEvent> wake() {
        return first.get();
    }

    /** @return the first event since {@link #clear}, or null if none came yet */
    WatchedEvent event() {
        return first.get().getNow(null);
    }

    /** Whether {@code event} says that the node at {@code path} was deleted (not a connection event). */
    static boolean deleted(WatchedEvent event, String path) {
        return event != null && event.getType() == Event.EventType.NodeDeleted && path.equals(event.getPath());
    }
}
