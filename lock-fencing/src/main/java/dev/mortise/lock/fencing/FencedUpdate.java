package dev.mortise.lock.fencing;

import dev.mortise.lock.LockLease;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The "fence column on my own row" style, for tables that carry their own
 * {@code fence BIGINT NOT NULL DEFAULT 0} column instead of using the shared fence table:
 *
 * <pre>{@code
 * FencedUpdate accounts = FencedUpdate.of("accounts", "id", "fence");
 * accounts.update(connection, 42, lease.fencingToken(), "balance = balance - ?", amount);
 * // UPDATE accounts SET balance = balance - ?, fence = ? WHERE id = ? AND fence <= ?
 * }</pre>
 *
 * <p>One statement, portable SQL (PostgreSQL, MySQL/MariaDB, H2 and most others). It is safe
 * on its own only when the new values do not depend on an earlier read (relative updates as
 * above). For read-modify-write, {@link #claim claim} the row first, in the same transaction:
 * that raises the row's fence and takes its lock before the read, as {@link JdbcFenceGuard}
 * does with its table.
 *
 * <p>When no row matches, one more statement tells a missing row (the update returns 0) from
 * a row fenced by a newer holder ({@link StaleFencingTokenException}). Thread-safe.
 */
public final class FencedUpdate {

    private static final String GUARD = "fenced-update";

    private final String table;
    private final String idColumn;
    private final String fenceColumn;

    private FencedUpdate(String table, String idColumn, String fenceColumn) {
        this.table = SqlIdentifier.table(table);
        this.idColumn = SqlIdentifier.column(idColumn, "idColumn");
        this.fenceColumn = SqlIdentifier.column(fenceColumn, "fenceColumn");
    }

    /**
     * Updates of {@code table}'s rows by {@code idColumn}, fenced by {@code fenceColumn}
     * (plain identifiers; the fence column must be {@code NOT NULL}, e.g. {@code DEFAULT 0}).
     */
    public static FencedUpdate of(String table, String idColumn, String fenceColumn) {
        return new FencedUpdate(table, idColumn, fenceColumn);
    }

    /**
     * Runs {@code UPDATE table SET <assignments>, fence = token WHERE id = ? AND fence <= token}.
     *
     * @param assignments the caller's {@code SET} list with {@code ?} placeholders, e.g. {@code "balance = ?"}
     *                    (SQL text: never put values into it)
     * @param values      the values for the placeholders of {@code assignments}, in order
     * @return 1, or 0 if there is no row with that id
     * @throws StaleFencingTokenException if the row's fence is higher than {@code token}
     */
    public int update(Connection connection, Object id, long token, String assignments, Object... values) {
        if (assignments == null || assignments.isBlank()) {
            throw new IllegalArgumentException("assignments for fenced update of " + resource(id) + " is blank ("
                    + GUARD + "): pass the SET list, e.g. \"balance = ?\", or use claim(..) to raise the fence only.");
        }
        return run(connection, id, token, assignments + ", ", values);
    }

    /** As {@link #update(Connection, Object, long, String, Object...)} with the lease's token. */
    public int update(Connection connection, Object id, LockLease lease, String assignments, Object... values) {
        return update(connection, id, Resources.checkLease(resource(id), lease, GUARD).fencingToken(), assignments, values);
    }

    /**
     * Raises the row's fence to {@code token} and takes the row's lock until the transaction
     * ends: call it first in a read-modify-write transaction (not in auto-commit mode).
     *
     * @return 1, or 0 if there is no row with that id
     * @throws StaleFencingTokenException if the row's fence is higher than {@code token}
     * @throws IllegalArgumentException   if {@code connection} is in auto-commit mode
     */
    public int claim(Connection connection, Object id, long token) {
        try {
            if (connection != null && connection.getAutoCommit()) {
                throw new IllegalArgumentException("claim(..) of " + resource(id) + " on a connection in auto-commit "
                        + "mode (" + GUARD + ") would release the row at once and protect nothing: call "
                        + "connection.setAutoCommit(false) first.");
            }
        } catch (SQLException e) {
            throw failed(id, token, e);
        }
        return run(connection, id, token, "", new Object[0]);
    }

    private int run(Connection connection, Object id, long token, String assignments, Object[] values) {
        if (connection == null || id == null) {
            throw new IllegalArgumentException("Fenced update of " + resource(id) + " needs a connection and an id ("
                    + GUARD + "): " + (connection == null ? "the connection is null" : "the id is null") + ".");
        }
        Resources.checkToken(resource(id), token, GUARD);
        String sql = "UPDATE " + table + " SET " + assignments + fenceColumn + " = ? WHERE " + idColumn + " = ? AND "
                + fenceColumn + " <= ?";
        try {
            try (PreparedStatement update = connection.prepareStatement(sql)) {
                int i = 1;
                for (Object value : values) {
                    update.setObject(i++, value);
                }
                update.setLong(i++, token);
                update.setObject(i++, id);
                update.setLong(i, token);
                if (update.executeUpdate() > 0) {
                    return 1;
                }
            }
            String read = "SELECT " + fenceColumn + " FROM " + table + " WHERE " + idColumn + " = ? FOR UPDATE";
            try (PreparedStatement select = connection.prepareStatement(read)) {
                select.setObject(1, id);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        return 0;
                    }
                    long fence = row.getLong(1);
                    if (row.wasNull()) {
                        throw new IllegalStateException("Column " + table + "." + fenceColumn + " is NULL for "
                                + resource(id) + " (" + GUARD + "), so no fenced write can match it: declare it "
                                + "NOT NULL DEFAULT 0 and set existing rows to 0.");
                    }
                    long newer = fence > token ? fence : -1;
                    throw new StaleFencingTokenException(StaleFencingTokenException.message(resource(id), token, newer,
                            "column " + table + "." + fenceColumn, true), resource(id), GUARD, token, newer);
                }
            }
        } catch (SQLException e) {
            throw failed(id, token, e);
        }
    }

    private FenceCheckException failed(Object id, long token, SQLException e) {
        return new FenceCheckException("Fenced update of " + resource(id) + " with token " + token + " failed ("
                + GUARD + "): " + e.getMessage() + ". Roll back the transaction.", resource(id), GUARD, e);
    }

    private String resource(Object id) {
        return table + ":" + id;
    }
}
