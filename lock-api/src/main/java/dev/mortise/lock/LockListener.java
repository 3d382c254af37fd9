package dev.mortise.lock;

/**
 * Observes lock operations of a {@link LockClient}; metrics and logging plug in here.
 *
 * <p>Where it is called: on the caller's thread for what the caller did (acquire, busy,
 * timeout, release, {@code extend}, and a loss the caller's own call found: a close, an
 * {@code ensureValid}, {@code forceRelease}, closing the client); on the client's one
 * notification thread ({@code mortise-notify-<backend>}), in order, for everything found in
 * the background: watchdog renewals and their failures, expiries, losses reported by the
 * backend. No listener ever runs on the watchdog or expiry threads, so a listener that blocks,
 * even for minutes, delays no renewal and no expiry, nor any {@code onLost} callback (those run
 * on threads of their own). The notification queue is bounded (10,000 events): a listener
 * slower than the events it is given loses the excess, with a warning. A listener that throws
 * is logged and ignored: it never breaks a lock operation.
 */
@FunctionalInterface
public interface LockListener {
    void onEvent(LockEvent event);
}
