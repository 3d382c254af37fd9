package dev.mortise.lock;

/**
 * Observes lock operations of a {@link LockClient}; metrics and logging plug in here.
 *
 * <p>Where it is called: on the caller's thread for what the caller did (acquire, busy,
 * timeout, release, {@code extend}, and a loss the caller's own call found: a close, an
 * {@code ensureValid}, {@code forceRelease}, closing the client); on the client's one
 * notification thread ({@code mortise-notify-<backend>}) for everything found in the
 * background: watchdog renewals and their failures, expiries, losses reported by the backend.
 * No listener ever runs on the watchdog or expiry threads, so a listener that blocks, even for
 * minutes, delays no renewal and no expiry; it only delays later background notifications. A
 * listener that throws is logged and ignored: it never breaks a lock operation.
 */
@FunctionalInterface
public interface LockListener {
    void onEvent(LockEvent event);
}
