package dev.mortise.lock;

import java.time.Duration;
import java.time.Instant;

/**
 * A snapshot of one hold of a {@link LockClient}, for diagnostics (the actuator endpoint).
 * A key held shared by several owners of one client appears once per owner.
 *
 * @param key          the lock key
 * @param backend      the backend name
 * @param fencingToken the token of the hold
 * @param holdCount    open leases sharing the hold
 * @param acquiredAt   when it was granted
 * @param heldFor      how long it has been held
 * @param remaining    time left before the local validity deadline
 * @param renewed      whether the background watchdog renews it
 * @param owner        the owner context: a thread name or an explicit owner id
 * @param mode         whether the hold is exclusive or shared
 * @param holderId     the hold's opaque id ({@link LockLease#holderId()}), as
 *                     {@link LockClient#inspect(String)} shows it on every client; null only for a
 *                     snapshot built without one
 */
public record HeldLock(String key, String backend, long fencingToken, int holdCount, Instant acquiredAt,
                       Duration heldFor, Duration remaining, boolean renewed, String owner, LockMode mode,
                       String holderId) {

    /** A hold without a holder id (as every snapshot was before inspection). */
    public HeldLock(String key, String backend, long fencingToken, int holdCount, Instant acquiredAt,
                    Duration heldFor, Duration remaining, boolean renewed, String owner, LockMode mode) {
        this(key, backend, fencingToken, holdCount, acquiredAt, heldFor, remaining, renewed, owner, mode, null);
    }

    /** An exclusive hold (as every hold was before shared locks). */
    public HeldLock(String key, String backend, long fencingToken, int holdCount, Instant acquiredAt,
                    Duration heldFor, Duration remaining, boolean renewed, String owner) {
        this(key, backend, fencingToken, holdCount, acquiredAt, heldFor, remaining, renewed, owner,
                LockMode.EXCLUSIVE);
    }
}
