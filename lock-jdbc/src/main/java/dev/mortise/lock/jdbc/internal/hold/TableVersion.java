package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.jdbc.internal.Schema;
import dev.mortise.lock.jdbc.internal.TableName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;

/**
 * What the backend knows of its table's version. A table of the previous version has no columns
 * for shared locks: the first waiting exclusive attempt finds that out ({@link #foundLegacy}), and
 * from then on waiting exclusive requests leave no writer marker and batches with a shared part are
 * left to the core. Statements of shared locks and of semaphores that fail on a missing column
 * fail naming the DDL to run. Thread-safe.
 */
final class TableVersion {

    /** The backend's own logger, as before the drivers were split out of it. */
    private static final Logger log = LoggerFactory.getLogger("dev.mortise.lock.jdbc.JdbcLockBackend");

    /** A statement that may name columns a table of an earlier version lacks. */
    @FunctionalInterface
    interface SqlWork<T> {
        T run() throws SQLException;
    }

    private final TableName table;
    private final String upgradeDdl;
    private volatile boolean legacy;

    /** @param upgradeDdl the statements that bring a table of an earlier version up to date, as one line */
    TableVersion(TableName table, String upgradeDdl) {
        this.table = table;
        this.upgradeDdl = upgradeDdl;
    }

    /** Whether the table turned out to be of the previous version (no columns for shared locks). */
    boolean isLegacy() {
        return legacy;
    }

    /** A statement of waiting writers failed on a missing column: the table is of the previous version. */
    void foundLegacy() {
        legacy = true;
        log.warn("Lock table '{}' has no columns for shared locks (a table of the previous version), so waiting "
                + "writers leave no marker and shared locks are refused (backend 'jdbc'). Run: {}", table, upgradeDdl);
    }

    /** A statement of shared locks, whose failure on a table of the previous version names the DDL to run. */
    <T> T shared(SqlWork<T> work) throws SQLException {
        return naming(work, "shared locks and lacks their columns: run " + upgradeDdl);
    }

    /** A statement of semaphores, whose failure on a table without the {@code permits} column names the DDL. */
    <T> T permits(SqlWork<T> work) throws SQLException {
        return naming(work, "native semaphores and lacks their columns: run " + upgradeDdl + " for the missing ones");
    }

    private <T> T naming(SqlWork<T> work, String lacks) throws SQLException {
        try {
            return work.run();
        } catch (SQLException e) {
            if (!Schema.missingColumn(e)) {
                throw e;
            }
            throw new SQLException("lock table '" + table + "' was created by a version of Mortise without " + lacks
                    + " (or build the backend with createTableIfMissing(true), which adds them). " + e.getMessage(),
                    e.getSQLState(), e.getErrorCode(), e);
        }
    }
}
