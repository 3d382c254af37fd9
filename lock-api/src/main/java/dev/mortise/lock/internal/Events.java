package dev.mortise.lock.internal;

import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockListener;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LostReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/** Delivers events to listeners; a failing listener is logged, never propagated. */
final class Events {

    private static final Logger log = LoggerFactory.getLogger(Events.class);

    private final String backend;
    private final List<LockListener> listeners;

    Events(String backend, List<LockListener> listeners) {
        this.backend = backend;
        this.listeners = listeners;
    }

    boolean hasListeners() {
        return !listeners.isEmpty();
    }

    /** @param mode the hold's mode, or the request's when nothing was granted */
    void fire(LockEvent.Type type, String key, LockMode mode, long token, long nanos, Throwable cause) {
        fire(type, key, mode, token, nanos, cause, null, null);
    }

    /** An ERROR event: {@code operation} failed with {@code cause}. */
    void fireError(LockEvent.Operation operation, String key, LockMode mode, long token, long nanos, Throwable cause) {
        fire(LockEvent.Type.ERROR, key, mode, token, nanos, cause, null, operation);
    }

    void fireLost(String key, LockMode mode, long token, long heldNanos, LostReason reason, Throwable cause) {
        fire(LockEvent.Type.LOST, key, mode, token, heldNanos, cause, reason, null);
    }

    private void fire(LockEvent.Type type, String key, LockMode mode, long token, long nanos, Throwable cause,
                      LostReason reason, LockEvent.Operation operation) {
        if (listeners.isEmpty()) {
            return;
        }
        LockEvent event = new LockEvent(type, backend, key, token, Duration.ofNanos(Math.max(0, nanos)), cause, reason,
                mode, operation);
        for (LockListener listener : listeners) {
            try {
                listener.onEvent(event);
            } catch (Throwable t) {
                log.warn("Lock listener {} failed on {} for lock '{}'; ignored", listener, type, key, t);
            }
        }
    }
}
