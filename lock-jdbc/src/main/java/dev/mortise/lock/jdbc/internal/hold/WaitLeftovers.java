package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.WaitSql;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what a wait that ends without a grant left on the key's row: a writer's marker, or a
 * waiter's record (PostgreSQL). Best effort: a failure only leaves it to expire, within the mark
 * horizon ({@link dev.mortise.lock.jdbc.internal.JdbcWait#markHorizonNanos}), and is logged at debug.
 * Thread-safe.
 */
final class WaitLeftovers {

    /** The backend's own logger, as before the drivers were split out of it. */
    private static final Logger log = LoggerFactory.getLogger("dev.mortise.lock.jdbc.JdbcLockBackend");

    private final JdbcCalls calls;
    private final WaitSql waits;

    WaitLeftovers(JdbcCalls calls, WaitSql waits) {
        this.calls = calls;
        this.waits = waits;
    }

    /** Whether waits record themselves in the row, so that a reader's or a permit request's wait has a record to forget. */
    boolean recorded() {
        return waits.recordsWaiters();
    }

    /** Removes a waiting reader's (or permit request's) record as a waiter (PostgreSQL). */
    void forgetWaiter(String userKey, String stored, String owner) {
        try {
            calls.run(userKey, "remove the waiting reader's record of", c -> {
                waits.forgetWaiter(c, stored, owner);
                return null;
            });
        } catch (RuntimeException e) {
            log.debug("Could not remove the waiting reader's record of lock '{}' (backend 'jdbc'); it expires on its own",
                    userKey, e);
        }
    }

    /** Removes the waiting writer's marker. */
    void clearMark(String userKey, String stored, String owner) {
        try {
            calls.run(userKey, "remove the waiting writer's marker of", c -> {
                waits.clearMark(c, stored, owner);
                return null;
            });
        } catch (RuntimeException e) {
            log.debug("Could not remove the waiting writer's marker of lock '{}' (backend 'jdbc'); it expires on its own",
                    userKey, e);
        }
    }
}
