package dev.mortise.lock.jdbc.internal;

import java.sql.SQLException;

/**
 * How H2's admission statements say "granted by this statement": a {@code MERGE} whose
 * {@code WHEN MATCHED AND …} condition is its one decision, read through {@code FINAL TABLE}, which
 * returns the row only when the merge wrote it. A refusal takes a second cheap primary-key read for
 * the busy answer's details (H2 has no way to return them from the same statement).
 * <ul>
 *   <li>exclusive ({@link H2LockSql}), shared ({@link H2SharedSql}), permits ({@link H2PermitSql}):
 *       a row in the final table is this merge's grant, with the token it wrote (an exclusive row
 *       this owner already held keeps its token: the same-owner branch re-applies the lease of the
 *       very request that took the key);</li>
 *   <li>waiting exclusive ({@link H2WaitSql}): the merge either takes the row or marks it, in one of
 *       two branches; only the taking branch writes this request's owner into {@code lock_owner}
 *       (the marking one runs only on a row another owner holds), so the final row's owner says
 *       which branch ran;</li>
 *   <li>batch ({@link H2BatchSql}): the rows of the final table, per part.</li>
 * </ul>
 * Two first-time acquirers of a new key can race on the insert; the loser sees a duplicate key and
 * sends the merge once more ({@link #onceMoreOnDuplicate}), then finds the row.
 */
final class H2Merges {

    /** One merge and what follows it on the same connection. */
    @FunctionalInterface
    interface Merge<T> {
        T run() throws SQLException;
    }

    private H2Merges() {
    }

    /**
     * Runs {@code merge}, and once more when it failed on a duplicate key: another session inserted
     * the key between the merge's lookup and its insert, so the row exists now.
     */
    static <T> T onceMoreOnDuplicate(Merge<T> merge) throws SQLException {
        try {
            return merge.run();
        } catch (SQLException e) {
            if (!"23505".equals(e.getSQLState())) {
                throw e;
            }
            return merge.run();
        }
    }
}
