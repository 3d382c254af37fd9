package dev.mortise.lock;

import java.time.Duration;

/**
 * Something that happened to a lock, delivered to {@link LockListener}s (metrics, logs).
 *
 * @param type         what happened
 * @param backend      the backend name
 * @param key          the lock key
 * @param fencingToken the token, or {@code -1} when nothing was granted
 * @param duration     for ACQUIRED/BUSY/TIMEOUT: time spent acquiring; for RELEASED/LOST:
 *                     time held; otherwise zero
 * @param cause        for ERROR and LOST: the failure, else {@code null}
 * @param lostReason   for LOST: why the hold was lost, else {@code null}
 */
public record LockEvent(Type type, String backend, String key, long fencingToken, Duration duration,
                        Throwable cause, LostReason lostReason) {

    /** The kinds of event. */
    public enum Type {
        /** A lease was granted (also for nested, reentrant leases). */
        ACQUIRED,
        /** A request that does not wait found the lock held. */
        BUSY,
        /** A waiting request reached its deadline. */
        TIMEOUT,
        /** A hold ended on the server (the last lease on it closed). */
        RELEASED,
        /** The watchdog extended a hold. */
        RENEWED,
        /** A hold was lost while open. */
        LOST,
        /** The backend failed an acquire, renew or release. */
        ERROR
    }
}
