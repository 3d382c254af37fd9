package dev.mortise.lock;

/**
 * Observes lock operations of a {@link LockClient}; metrics and logging plug in here.
 *
 * <p>Called synchronously on the thread that did the operation: the caller's thread for
 * acquire, release and losses it discovers itself; the watchdog thread for renewals; the
 * client's background thread for losses found by the watchdog or reported by the backend
 * (so a slow listener delays neither renewals nor the backend's event thread). Keep it
 * quick all the same. A listener that throws is logged and ignored: it never breaks a lock
 * operation.
 */
@FunctionalInterface
public interface LockListener {
    void onEvent(LockEvent event);
}
