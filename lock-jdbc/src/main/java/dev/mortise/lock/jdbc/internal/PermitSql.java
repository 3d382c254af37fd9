package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The statements of native semaphores (permit holds) of one dialect. A permit hold is a shared
 * hold ({@link SharedSql}): {@code lock_owner = '(shared)'}, its owner and expiry in
 * {@code shared_holds}, so renewal, inspection and the exclusive statements treat it as a reader.
 * What it adds lives in the same row: the permit count of each hold and the semaphore's stored
 * count, cleared when the last holder leaves. Every method is one statement on an autocommit
 * connection.
 */
public interface PermitSql {

    /**
     * One admission attempt: grants {@code count} permits to {@code owner} when the row is free (then
     * storing {@code limit}) or held only by live permit holds whose counts plus {@code count} fit
     * under the stored count, and no writer's marker is unexpired; each grant takes the row's next
     * token. A request that does not {@code follow} the stored count is refused, writing nothing,
     * when live holds keep another count than {@code limit}. With {@code record}, a refused attempt
     * records the waiter in the row for {@code markMillis}, so releases know to notify.
     */
    Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, int count, int limit,
                    boolean follow, boolean record, long markMillis, long[] requestedAt) throws SQLException;

    /**
     * Removes {@code owner}'s unexpired permit hold (the last one leaving also clears the stored
     * count) and wakes waiters if any are recorded.
     */
    boolean release(Connection connection, String key, String owner) throws SQLException;

    /** Changes the stored count if live permit holds exist, and wakes waiters if any are recorded. */
    void setPermits(Connection connection, String key, int limit) throws SQLException;

    /**
     * What an admission attempt answered. Granted, as in {@link LockSql.Outcome}, means this statement
     * admitted the request (its one decision) and the token is the one it wrote; the owner's entry or
     * count being in the row afterwards is no grant (a first send of the same request may have left it).
     *
     * @param token           the fencing token when granted, else 0
     * @param remainingMillis when busy, until the first live hold expires, or -1 if unknown
     * @param mismatch        when refused because live holds keep another count: that count, else 0
     */
    record Outcome(long token, long remainingMillis, int mismatch) {

        public boolean isGranted() {
            return token > 0;
        }
    }
}
