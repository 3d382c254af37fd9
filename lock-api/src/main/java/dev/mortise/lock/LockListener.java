package dev.mortise.lock;

/**
 * Observes lock operations of a {@link LockClient}; metrics and logging plug in here.
 *
 * <p>Called synchronously on the thread that did the operation (the watchdog thread for
 * renewals and losses), so it must be quick and must not block. A listener that throws
 * is logged and ignored: it never breaks a lock operation.
 */
@FunctionalInterface
public interface LockListener {
    void onEvent(LockEvent event);
}
