package dev.mortise.lock;

import java.time.Duration;

/**
 * Something that happened to a lock, delivered to {@link LockListener}s (metrics, logs).
 *
 * @param type         what happened
 * @param backend      the backend name
 * @param key          the lock key
 * @param fencingToken the token, or {@code -1} when nothing was granted
 * @param duration     for ACQUIRED/BUSY/TIMEOUT/DEADLOCK: time spent acquiring; for RELEASED/LOST:
 *                     time held; otherwise zero
 * @param cause        for ERROR and LOST: the failure; for DEADLOCK the {@link LockDeadlockException};
 *                     else {@code null}
 * @param lostReason   for LOST: why the hold was lost, else {@code null}
 * @param mode         the mode of the hold (ACQUIRED, RELEASED, RENEWED, LOST, and ERROR of a
 *                     hold), or of the request when nothing was granted (BUSY, TIMEOUT, ERROR of
 *                     an acquire); never {@code null}
 * @param operation    the operation the event reports on: {@link Operation#ACQUIRE} for ACQUIRED,
 *                     BUSY and TIMEOUT, {@link Operation#RENEW} for RENEWED,
 *                     {@link Operation#RELEASE} for RELEASED; for ERROR the operation that failed
 *                     (so listeners tell a failed acquire from a failed renewal or release);
 *                     {@code null} for LOST (no operation of the caller's) and for an ERROR built
 *                     without one
 */
public record LockEvent(Type type, String backend, String key, long fencingToken, Duration duration,
                        Throwable cause, LostReason lostReason, LockMode mode, Operation operation) {

    /**
     * Checks the mode; a {@code null} mode is taken as {@link LockMode#EXCLUSIVE}. A
     * {@code null} operation is taken from the type where the type implies one.
     */
    public LockEvent {
        mode = mode == null ? LockMode.EXCLUSIVE : mode;
        operation = operation != null ? operation : switch (type) {
            case ACQUIRED, BUSY, TIMEOUT, DEADLOCK -> Operation.ACQUIRE;
            case RENEWED -> Operation.RENEW;
            case RELEASED -> Operation.RELEASE;
            case LOST, ERROR -> null;
        };
    }

    /** An event whose operation follows from its type (ERROR: unknown, {@code null}). */
    public LockEvent(Type type, String backend, String key, long fencingToken, Duration duration,
                     Throwable cause, LostReason lostReason, LockMode mode) {
        this(type, backend, key, fencingToken, duration, cause, lostReason, mode, null);
    }

    /** An event of an exclusive hold or request (as every event was before shared locks). */
    public LockEvent(Type type, String backend, String key, long fencingToken, Duration duration,
                     Throwable cause, LostReason lostReason) {
        this(type, backend, key, fencingToken, duration, cause, lostReason, LockMode.EXCLUSIVE, null);
    }

    /** The client operations an event reports on. */
    public enum Operation {
        /** Acquiring a lease (tryAcquire, acquire, nested acquires). */
        ACQUIRE,
        /** The watchdog's (or an explicit) extension of a hold. */
        RENEW,
        /** Ending a hold on the server. */
        RELEASE
    }

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
        /** The backend failed an acquire, renew or release ({@link LockEvent#operation()} says which). */
        ERROR,
        /**
         * A waiting acquire was ended as the victim of a deadlock ({@link LockEvent#cause()} is the
         * {@link LockDeadlockException} naming the cycle; the duration is the time it waited).
         */
        DEADLOCK
    }
}
