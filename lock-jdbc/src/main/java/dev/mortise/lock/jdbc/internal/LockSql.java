package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

/**
 * The statements of one dialect. Every method runs on an autocommit connection it is
 * given, in as few round trips as the dialect allows (one, unless documented), and judges
 * expiry by the database's clock only: no application time is ever sent.
 */
public interface LockSql {

    /**
     * Takes {@code key} for {@code owner} if the row is missing, free, expired, or already
     * {@code owner}'s; a new owner gets the row's token plus one.
     *
     * @param requestedAt set to {@link System#nanoTime()} just before the statement is sent
     */
    Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, long[] requestedAt)
            throws SQLException;

    /** Extends the row if it is {@code owner}'s and unexpired. */
    boolean renew(Connection connection, String key, String owner, long leaseMillis) throws SQLException;

    /**
     * Extends every row in {@code holds} that is still its hold's owner's and unexpired, and
     * never touches any other row, in one statement per {@link StatementRuns#CHARS}
     * characters of keys and owners.
     *
     * @return the positions in {@code holds} of the holds that are gone (expired, taken by
     *         another owner, or deleted); empty when every hold was renewed
     */
    BitSet renewAll(Connection connection, List<Held> holds, long leaseMillis) throws SQLException;

    /** Clears owner and expiry of the row if it is {@code owner}'s and unexpired, keeping the token. */
    boolean release(Connection connection, String key, String owner) throws SQLException;

    /** One hold to renew: the stored key and its owner. */
    record Held(String key, String owner) {
    }

    /**
     * What one acquire statement answered. Granted means <em>this statement</em> took the hold: the
     * answer comes from the one decision the statement made (an upsert's WHERE, a MERGE branch, the
     * {@code LAST_INSERT_ID} set where the grant is written), and the token is the one it wrote or,
     * for an exclusive row the owner already held, kept. Never derived from the owner's entry being
     * in the row afterwards: when {@code JdbcCalls} sends a statement again after a broken
     * connection, the first send may have left that entry in a row the resend is refused on.
     *
     * @param token           the fencing token when granted, else 0
     * @param remainingMillis when busy, the holder's remaining lease, or -1 if unknown
     */
    record Outcome(long token, long remainingMillis) {

        static Outcome granted(long token) {
            return new Outcome(token, -1);
        }

        static Outcome busy(long remainingMillis) {
            return new Outcome(0, remainingMillis);
        }

        public boolean isGranted() {
            return token > 0;
        }
    }
}
