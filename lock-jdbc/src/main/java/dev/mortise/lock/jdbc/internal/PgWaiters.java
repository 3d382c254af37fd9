package dev.mortise.lock.jdbc.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * PostgreSQL's record of who waits for a key (issue 19): the {@code waiters} column, a {@code jsonb}
 * object {@code {owner: expiry µs}} of the requests waiting for the row. A waiting request's refused
 * attempt adds its entry in the same statement, expiring when its next attempt is surely due (never
 * past its deadline); its granting attempt removes it, as does an exclusive waiter's giving up. A
 * release (and a last reader leaving, and a waiting writer giving up) sends {@code pg_notify} only
 * while an entry is unexpired, in its one statement.
 *
 * <p>No wake-up is lost: a waiter LISTENs before the attempt that registers it (see {@link JdbcWait}),
 * and both that attempt and every release write the row, so they are ordered by its row lock. A
 * release ordered before the attempt is seen by the attempt (the row is free); one ordered after it
 * finds the entry and notifies a session already listening when it commits.
 *
 * <p>A table created before the column existed answers the statements that name it with "column does
 * not exist": the backend then uses the statements of the previous version for good (every release
 * notifies, as before), and says once how to add the column. Shared by one backend's statements;
 * thread-safe.
 */
final class PgWaiters {

    private static final Logger log = LoggerFactory.getLogger(PgWaiters.class);

    /** The column, as {@code Schema} adds it to a table of an earlier version. */
    static final String COLUMN = "waiters JSONB";

    /** The µs clock every entry is written and judged by (the statement's transaction time). */
    static final String NOW_US = PostgresExpressions.NOW_US;

    /** Whether the {@code waiters} of row {@code %s} has an unexpired entry. */
    static final String ANYONE = "EXISTS (SELECT 1 FROM jsonb_each(%s.waiters) w WHERE CAST(w.value AS BIGINT) > "
            + NOW_US + ")";

    private final TableName table;
    private final AtomicBoolean missing = new AtomicBoolean();

    PgWaiters(TableName table) {
        this.table = table;
    }

    /** The entries of row {@code row} that are unexpired, {@code '{}'} when none. */
    static String live(String row) {
        return "COALESCE(" + PostgresExpressions.PRUNED.formatted(row + ".waiters") + ", '{}')";
    }

    /** One statement in two versions: naming the column, and the previous version's. */
    @FunctionalInterface
    interface Statement<T> {
        T run(boolean withColumn) throws SQLException;
    }

    /**
     * Runs the version naming the column while the table has it; on "column does not exist" (no
     * effect: PostgreSQL refuses the statement before running it) runs the previous version, now and
     * from then on. A table also lacking the shared-lock columns then fails that one as before.
     */
    <T> T run(Statement<T> statement) throws SQLException {
        if (!missing.get()) {
            try {
                return statement.run(true);
            } catch (SQLException e) {
                if (!Schema.missingColumn(e)) {
                    throw e;
                }
                if (missing.compareAndSet(false, true)) {
                    log.warn("Lock table '{}' has no 'waiters' column (a table of an earlier version), so every release "
                            + "sends a NOTIFY whether anybody waits or not (backend 'jdbc'). Run: ALTER TABLE {} ADD COLUMN "
                            + "{} (or build the backend with createTableIfMissing(true), which adds it).", table, table.sql(),
                            COLUMN);
                }
            }
        }
        return statement.run(false);
    }
}
