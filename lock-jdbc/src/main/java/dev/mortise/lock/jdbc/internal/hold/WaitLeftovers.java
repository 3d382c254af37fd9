package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.WaitSql;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;

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

    /** Whether waiting requests record themselves in the row (PostgreSQL listening for releases). */
    boolean recorded() {
        return waits.recordsWaiters();
    }

    /** Removes a waiting reader's (or permit request's) record as a waiter, where waits record themselves. */
    void forgetWaiter(String userKey, String stored, String owner) {
        if (waits.recordsWaiters()) {
            bestEffort(userKey, "the waiting reader's record", c -> waits.forgetWaiter(c, stored, owner));
        }
    }

    /** Removes the waiting writer's marker. */
    void clearMark(String userKey, String stored, String owner) {
        bestEffort(userKey, "the waiting writer's marker", c -> waits.clearMark(c, stored, owner));
    }

    /** One removal on the row of {@code userKey}. */
    @FunctionalInterface
    private interface Removal {
        void run(Connection connection) throws SQLException;
    }

    private void bestEffort(String userKey, String what, Removal removal) {
        try {
            calls.run(userKey, "remove " + what + " of", c -> {
                removal.run(c);
                return null;
            });
        } catch (RuntimeException e) {
            log.debug("Could not remove {} of lock '{}' (backend 'jdbc'); it expires on its own", what, userKey, e);
        }
    }
}
