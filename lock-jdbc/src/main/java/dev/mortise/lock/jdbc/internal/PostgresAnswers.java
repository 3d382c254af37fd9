package dev.mortise.lock.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * How PostgreSQL's admission statements say "granted by this statement": each has an upsert whose
 * {@code WHERE} is its one decision, so the upsert returns a row exactly when this statement
 * granted, with the token it wrote; the answer is that token in the first column, or NULL and
 * the busy answer's remaining milliseconds in the second. Never "the owner's entry is in the
 * row": after a broken connection the request is sent again, and its first send may have left
 * that entry in a row the resend is refused on (issue 28).
 *
 * <ul>
 *   <li>exclusive ({@link PostgresLockSql}): the upsert's {@code WHERE} (free, expired, or this
 *       owner's: the same-owner branch re-applies the lease of the very request that took the key
 *       and keeps its token, so its answer is this request's);</li>
 *   <li>waiting exclusive ({@link PostgresWaitSql}): the same upsert, and only when it returned nothing,
 *       a second upsert of the row it locked that leaves the writer's marker;</li>
 *   <li>shared and waiting shared ({@link PostgresSharedSql}): the reader upsert's {@code WHERE};
 *       every grant writes a new token and the reader's own new expiry;</li>
 *   <li>permits ({@link PostgresPermitSql}): the same shape, with a third column for a count mismatch;</li>
 *   <li>batch ({@link PostgresBatchSql}): the tokens the upserts returned, per part.</li>
 * </ul>
 */
final class PostgresAnswers {

    private PostgresAnswers() {
    }

    /** Runs an admission statement: granted with the first column's token, or busy with the second's milliseconds. */
    static LockSql.Outcome read(PreparedStatement statement) throws SQLException {
        try (ResultSet rows = statement.executeQuery()) {
            if (!rows.next()) {
                // The conflicting row was committed after our snapshot began: busy, holder unknown.
                return LockSql.Outcome.busy(-1);
            }
            long token = rows.getLong(1);
            return rows.wasNull() ? LockSql.Outcome.busy(rows.getLong(2)) : LockSql.Outcome.granted(token);
        }
    }

    /**
     * Runs a permit admission: granted with the first column's token; else busy with the second
     * column's milliseconds (-1 if NULL) and, in the third, the stored count while permit holds are
     * live, which refuses a request that does not follow it as a mismatch when it differs from {@code limit}.
     */
    static PermitSql.Outcome readPermits(PreparedStatement statement, boolean follow, int limit) throws SQLException {
        try (ResultSet rows = statement.executeQuery()) {
            if (!rows.next()) {
                return new PermitSql.Outcome(0, -1, 0);
            }
            long token = rows.getLong(1);
            if (!rows.wasNull()) {
                return new PermitSql.Outcome(token, -1, 0);
            }
            long remaining = rows.getLong(2);
            if (rows.wasNull()) {
                remaining = -1;
            }
            int stored = rows.getInt(3);
            boolean mismatch = !rows.wasNull() && !follow && stored != limit;
            return new PermitSql.Outcome(0, remaining, mismatch ? stored : 0);
        }
    }
}
