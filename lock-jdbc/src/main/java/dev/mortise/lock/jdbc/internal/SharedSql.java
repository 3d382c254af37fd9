package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

/**
 * The statements of one dialect for shared (read) holds. All of a key's hold state lives in its
 * one row, so every statement decides on one row that the database locks while it writes it (no
 * snapshot of other rows can be stale):
 * <ul>
 *   <li>a key held shared has {@code lock_owner = '(shared)'} ({@link #SHARED_OWNER}) and
 *       {@code expires_at} = the latest expiry of its readers, so the exclusive statements of
 *       {@link LockSql} — and backends of the previous version — see it as held, unchanged;</li>
 *   <li>{@code shared_holds} lists each reader's owner and expiry (database clock, µs since 1970);
 *       it means something only while {@code lock_owner = '(shared)'};</li>
 *   <li>{@code waiting_writer} and {@code writer_waits_until} are the marker an exclusive request
 *       leaves while it waits ({@link WaitSql}): no new reader is granted while it is unexpired;</li>
 *   <li>every grant, shared or exclusive, raises the row's one {@code fencing_token}.</li>
 * </ul>
 * Every method runs on an autocommit connection in one statement unless documented.
 */
public interface SharedSql {

    /**
     * The owner a key held shared shows in {@code lock_owner}. Core owner ids always contain
     * {@code ':'}, so no hold can be mistaken for it; requests with this owner are refused.
     */
    String SHARED_OWNER = "(shared)";

    /** {@link #SHARED_OWNER} as an SQL literal (a constant: nothing user-given). */
    String SHARED_OWNER_SQL = "'" + SHARED_OWNER + "'";

    /**
     * Adds {@code owner} as a reader if the row is missing, free, expired or held shared, and no
     * writer's marker is unexpired; each grant takes a new token from the row's counter.
     */
    LockSql.Outcome acquireShared(Connection connection, StoredKey key, String owner, long leaseMillis,
                                  long[] requestedAt) throws SQLException;

    /**
     * A shared attempt of a request that waits: as {@link #acquireShared}; where the dialect wakes
     * waiters (PostgreSQL), a refused attempt also records the waiter in the row for
     * {@code markMillis}, so releases know to notify (see {@link WaitSql#recordsWaiters}). The
     * default is {@link #acquireShared}.
     */
    default LockSql.Outcome acquireSharedWaiting(Connection connection, StoredKey key, String owner, long leaseMillis,
                                                 long markMillis, long[] requestedAt) throws SQLException {
        return acquireShared(connection, key, owner, leaseMillis, requestedAt);
    }

    /** Extends {@code owner}'s reader entry if it is unexpired. */
    boolean renewShared(Connection connection, String key, String owner, long leaseMillis) throws SQLException;

    /**
     * Extends every listed reader entry that is unexpired, in one statement (two on MySQL).
     *
     * @return the positions of the holds that are gone
     */
    BitSet renewAllShared(Connection connection, List<LockSql.Held> holds, long leaseMillis) throws SQLException;

    /**
     * Removes {@code owner}'s unexpired reader entry; the last live reader leaving frees the row
     * (and wakes waiters where the dialect can).
     */
    boolean releaseShared(Connection connection, String key, String owner) throws SQLException;
}
