package dev.mortise.lock.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * How MySQL's and MariaDB's admission statements answer: one {@code INSERT … ON DUPLICATE KEY
 * UPDATE} whose answer travels in the OK packet's last-insert-id (MySQL has no {@code RETURNING},
 * and two statements in one call would need the driver's multi-query flag), read as the generated
 * key. The statement calls {@code LAST_INSERT_ID(token)} in the branch that grants and
 * {@code LAST_INSERT_ID(BUSY + µs until the blocker ends)} otherwise ({@code MISMATCH + stored
 * count} for a permit request refused on its count), so the answer is the one decision the
 * statement made, with the token it wrote. Fencing tokens stay below 2^61, so the ranges never meet.
 *
 * <p>The assignments of an {@code ON DUPLICATE KEY UPDATE} run left to right, each seeing the
 * columns already assigned, and MySQL has no per-statement variable (assigning user variables in
 * expressions is deprecated): so the decision is one condition, written once, that every
 * assignment before the owner's reads on columns not yet assigned, and the assignments after it
 * read what the decision wrote. The per-mode rules:
 * <ul>
 *   <li>exclusive and waiting exclusive ({@link MySqlLockSql}, {@link MySqlWaitSql}): the take
 *       condition (free, expired or this owner's: the same-owner branch re-applies the lease of the
 *       very request that took the key and keeps its token), then the owner is written, and the
 *       expiry moves only where the owner is now this request's, which only the take can write;</li>
 *   <li>shared ({@link MySqlSharedSql}): the admission condition; the expiry moves only where the
 *       row now shows the shared owner and no unexpired marker, exactly the rows the admission took;</li>
 *   <li>permits ({@link MySqlPermitSql}): the first assignment decides and writes this attempt's own
 *       random grant id, which every later assignment asks for;</li>
 *   <li>batch ({@link MySqlBatchSql}): the write's check refuses a batch with any key held, the
 *       same owners' included, so the tokens it then reads are this statement's.</li>
 * </ul>
 */
final class MySqlAnswers {

    /** Busy answers are this plus the µs until the blocker ends. */
    static final long BUSY = 1L << 62;
    /** Answers at or above this (and below {@link #BUSY}) are a permit count mismatch: the stored count. */
    static final long MISMATCH = 1L << 61;

    private MySqlAnswers() {
    }

    /** The answer of an executed exclusive or shared admission. */
    static LockSql.Outcome read(PreparedStatement statement) throws SQLException {
        long answer = lastInsertId(statement);
        if (answer >= BUSY) {
            return LockSql.Outcome.busy((answer - BUSY + 999) / 1000);
        }
        return answer > 0 ? LockSql.Outcome.granted(answer) : LockSql.Outcome.busy(-1);
    }

    /** The answer of an executed permit admission. */
    static PermitSql.Outcome readPermits(PreparedStatement statement) throws SQLException {
        long answer = lastInsertId(statement);
        if (answer >= BUSY) {
            return new PermitSql.Outcome(0, (answer - BUSY + 999) / 1000, 0);
        }
        if (answer >= MISMATCH) {
            return new PermitSql.Outcome(0, -1, (int) (answer - MISMATCH));
        }
        return answer > 0 ? new PermitSql.Outcome(answer, -1, 0) : new PermitSql.Outcome(0, -1, 0);
    }

    /** The generated key the driver hands back, 0 if none. */
    private static long lastInsertId(PreparedStatement statement) throws SQLException {
        try (ResultSet keys = statement.getGeneratedKeys()) {
            return keys.next() ? keys.getLong(1) : 0;
        }
    }
}
