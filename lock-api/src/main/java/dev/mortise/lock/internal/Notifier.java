package dev.mortise.lock.internal;

import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockLostEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Runs user code that the client's own threads would otherwise run: {@link dev.mortise.lock.LockListener}
 * events found in the background (renewals, their failures, losses) and {@code onLost} callbacks.
 * One daemon thread per client, so a listener that blocks for minutes delays other
 * notifications but never a renewal or an expiry, which run on threads of their own.
 * Notifications queued when the client closes are still delivered.
 */
final class Notifier {

    private static final Logger log = LoggerFactory.getLogger(Notifier.class);

    private final Events events;
    private final ExecutorService executor;

    Notifier(String backendName, Events events) {
        this.events = events;
        this.executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "mortise-notify-" + backendName);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Fires a listener event on the notification thread. */
    void fire(LockEvent.Type type, String key, long token, long nanos, Throwable cause) {
        if (events.hasListeners()) {
            run(() -> events.fire(type, key, token, nanos, cause));
        }
    }

    /** Tells listeners and {@code onLost} callbacks of a loss, on the notification thread. */
    void lost(LockLostEvent event, long heldNanos, List<Consumer<LockLostEvent>> callbacks) {
        run(() -> {
            events.fireLost(event.key(), event.fencingToken(), heldNanos, event.reason(), event.cause());
            for (Consumer<LockLostEvent> callback : callbacks) {
                call(callback, event);
            }
        });
    }

    /** As {@link #lost}, on the calling thread (a user's thread that found the loss itself). */
    void lostHere(LockLostEvent event, long heldNanos, List<Consumer<LockLostEvent>> callbacks) {
        events.fireLost(event.key(), event.fencingToken(), heldNanos, event.reason(), event.cause());
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

    private void run(Runnable notification) {
        try {
            executor.execute(notification);
        } catch (RejectedExecutionException closed) {
            // Shut down. On a caller's thread, tell it here; the client's own threads never run user code.
            if (Thread.currentThread().getName().startsWith("mortise-")) {
                log.debug("Client closed; a notification from {} was dropped", Thread.currentThread().getName());
            } else {
                notification.run();
            }
        }
    }

    void shutdown() {
        executor.shutdown();
    }
}
