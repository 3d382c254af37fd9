package dev.mortise.lock.internal;

import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Runs user code that the client's own threads would otherwise run, so that none of it can
 * delay a renewal or an expiry (those run on threads of their own):
 * <ul>
 *   <li>{@code onLost} callbacks, each loss on a pooled daemon thread of its own
 *       ({@code mortise-onlost-<backend>-N}): a callback that blocks delays no other hold's
 *       loss notice;</li>
 *   <li>{@link dev.mortise.lock.LockListener} events found in the background (renewals, their
 *       failures, losses) on one daemon thread ({@code mortise-notify-<backend>}), in order. Its
 *       queue is bounded: a listener slower than the events it is given (a renewal event per
 *       hold per period) drops events past {@value #EVENT_QUEUE} queued, with a warning, rather
 *       than let the queue grow without end.</li>
 * </ul>
 * Notifications queued when the client closes are still delivered, and so are those found
 * after it closed (a loss the expiry timer found as the client closed).
 */
final class Notifier {

    private static final Logger log = LoggerFactory.getLogger(Notifier.class);
    static final int EVENT_QUEUE = 10_000;

    private final String backendName;
    private final Events events;
    private final ThreadPoolExecutor eventThread;
    private final ExecutorService lossThreads;
    private final AtomicLong dropped = new AtomicLong();
    /** Loss notices handed to {@link #lossThreads} and not yet delivered (for {@link #drain}). */
    private final AtomicInteger lossesUnderway = new AtomicInteger();
    /** Guards the wait for {@link #lossesUnderway} to reach 0 (a lock, not a monitor: no pinned carrier). */
    private final ReentrantLock drained = new ReentrantLock();
    private final Condition allDelivered = drained.newCondition();

    Notifier(String backendName, Events events) {
        this.backendName = backendName;
        this.events = events;
        this.eventThread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(EVENT_QUEUE), daemon("mortise-notify-" + backendName, false));
        this.lossThreads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), daemon("mortise-onlost-" + backendName + "-", true));
    }

    private static java.util.concurrent.ThreadFactory daemon(String name, boolean numbered) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, numbered ? name + count.incrementAndGet() : name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Fires a listener event on the notification thread. */
    void fire(LockEvent.Type type, String key, LockMode mode, long token, long nanos, Throwable cause) {
        if (events.hasListeners()) {
            event(() -> events.fire(type, key, mode, token, nanos, cause));
        }
    }

    /** Fires an ERROR event ({@code operation} failed) on the notification thread. */
    void fireError(LockEvent.Operation operation, String key, LockMode mode, long token, long nanos, Throwable cause) {
        if (events.hasListeners()) {
            event(() -> events.fireError(operation, key, mode, token, nanos, cause));
        }
    }

    /** Tells {@code onLost} callbacks of a loss at once on a thread of their own, and listeners in order. */
    void lost(LockLostEvent event, LockMode mode, long heldNanos, List<Consumer<LockLostEvent>> callbacks) {
        if (events.hasListeners()) {
            event(() -> events.fireLost(event.key(), mode, event.fencingToken(), heldNanos, event.reason(), event.cause()));
        }
        if (!callbacks.isEmpty()) {
            Runnable tell = () -> {
                for (Consumer<LockLostEvent> callback : callbacks) {
                    call(callback, event);
                }
            };
            lossesUnderway.incrementAndGet();
            try {
                lossThreads.execute(() -> {
                    try {
                        tell.run();
                    } finally {
                        lossDelivered();
                    }
                });
            } catch (RejectedExecutionException closed) {
                lossDelivered();
                runHereUnlessInternal(tell);
            }
        }
    }

    private void lossDelivered() {
        if (lossesUnderway.decrementAndGet() == 0) {
            drained.lock();
            try {
                allDelivered.signalAll();
            } finally {
                drained.unlock();
            }
        }
    }

    /**
     * Waits until every notification queued so far is delivered: listener events already
     * queued, and every {@code onLost} callback already handed out. For a ticker that jumps (a
     * test's): what a jump ended is told before the jump returns. Gives up after
     * {@code timeoutNanos} (a callback that blocks), and does not wait on the client's own
     * threads (an {@code onLost} callback that moves time would wait for itself).
     */
    void drain(long timeoutNanos) {
        if (Thread.currentThread().getName().startsWith("mortise-")) {
            return;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            try {
                eventThread.submit(() -> { }).get(timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException | java.util.concurrent.ExecutionException
                     | java.util.concurrent.TimeoutException full) {
                // shut down, or a listener slower than its events: the loss notices below still count
            }
            drained.lock();
            try {
                long left;
                while (lossesUnderway.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
                    allDelivered.awaitNanos(left);
                }
            } finally {
                drained.unlock();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (lossesUnderway.get() > 0) {
            log.warn("{} onLost callback(s) of backend '{}' still running after {} ms; not waiting longer",
                    lossesUnderway.get(), backendName, TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
        }
    }

    /** As {@link #lost}, on the calling thread (a user's thread that found the loss itself). */
    void lostHere(LockLostEvent event, LockMode mode, long heldNanos, List<Consumer<LockLostEvent>> callbacks) {
        events.fireLost(event.key(), mode, event.fencingToken(), heldNanos, event.reason(), event.cause());
        for (Consumer<LockLostEvent> callback : callbacks) {
            call(callback, event);
        }
    }

    /** Calls one {@code onLost} callback; a callback that throws is logged and ignored. */
    static void call(Consumer<LockLostEvent> callback, LockLostEvent event) {
        try {
            callback.accept(event);
        } catch (Throwable t) {
            log.warn("onLost listener for lock '{}' failed; ignored", event.key(), t);
        }
    }

    private void event(Runnable notification) {
        try {
            eventThread.execute(notification);
        } catch (RejectedExecutionException full) {
            if (eventThread.isShutdown()) {
                runHereUnlessInternal(notification);
                return;
            }
            long count = dropped.incrementAndGet();
            if (count == 1 || Long.bitCount(count) == 1) {
                log.warn("A LockListener of backend '{}' is slower than the events it is given: {} event(s) queued, "
                        + "{} dropped so far. Keep listeners quick (hand slow work to an executor of your own).",
                        backendName, EVENT_QUEUE, count);
            }
        }
    }

    private void runHereUnlessInternal(Runnable notification) {
        // Shut down. On a caller's thread, tell it here. One of the client's own threads (the expiry
        // timer or the watchdog, which may mark a hold lost just before close() does) never runs user
        // code, and dropping the notice would leave a loss untold: a thread of its own tells it.
        if (Thread.currentThread().getName().startsWith("mortise-")) {
            Thread late = new Thread(notification, "mortise-late-notice-" + backendName);
            late.setDaemon(true);
            late.start();
        } else {
            notification.run();
        }
    }

    void shutdown() {
        eventThread.shutdown();
        lossThreads.shutdown();
    }
}
