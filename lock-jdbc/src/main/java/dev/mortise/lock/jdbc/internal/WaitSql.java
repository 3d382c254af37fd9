package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The statements of one dialect for what a wait leaves on a key's row: the marker of an exclusive
 * request that waits ({@code waiting_writer}, {@code writer_waits_until}: no new reader is granted
 * while it is unexpired, see {@link SharedSql}), and, on PostgreSQL, the record of every waiting
 * request in {@code waiters} ({@link PgWaiters}), so that releases notify only while somebody
 * waits. Every method runs on an autocommit connection in one statement.
 */
public interface WaitSql {

    /**
     * An exclusive attempt of a request that waits: takes the row as {@link LockSql#acquire} does
     * (clearing the marker if it is {@code owner}'s), and otherwise leaves {@code owner}'s marker
     * on the row, expiring {@code markMillis} from now. One statement, granted or busy.
     */
    LockSql.Outcome acquireMarking(Connection connection, StoredKey key, String owner, long leaseMillis,
                                   long markMillis, long[] requestedAt) throws SQLException;

    /** Removes {@code owner}'s marker, if it is still the row's; wakes waiters where the dialect can. */
    void clearMark(Connection connection, String key, String owner) throws SQLException;

    /**
     * Whether this backend's waiting requests record themselves in the row
     * ({@link SharedSql#acquireSharedWaiting}, {@link #acquireMarking}, permit attempts), so that a
     * wait that ends without a grant should {@link #forgetWaiter}: PostgreSQL when the backend
     * listens for releases; a backend that polls records nothing, so releases nobody listens for
     * send no NOTIFY.
     */
    default boolean recordsWaiters() {
        return false;
    }

    /**
     * Removes {@code owner}'s record as a waiter, left by a shared or permit wait that ended without
     * a grant; never notifies. Only called where {@link #recordsWaiters()}.
     */
    default void forgetWaiter(Connection connection, String key, String owner) throws SQLException {
    }
}
