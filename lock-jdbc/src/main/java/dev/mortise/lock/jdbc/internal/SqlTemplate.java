package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;

/** Shared by the dialects: statement text with the table name in, and the query timeout on every statement. */
abstract class SqlTemplate implements LockSql {

    /** Row constructors per renewAll statement, so a huge batch never exceeds driver parameter limits. */
    static final int BATCH = 500;

    final TableName table;
    private final int queryTimeoutSeconds;

    SqlTemplate(TableName table, int queryTimeoutSeconds) {
        this.table = table;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
    }

    /** {@code sql} with {@code ${table}} replaced by the validated table name. */
    final String sql(String sql) {
        return sql.replace("${table}", table.sql());
    }

    final PreparedStatement prepare(Connection connection, String sql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setQueryTimeout(queryTimeoutSeconds);
        return statement;
    }

    final PreparedStatement prepareReturningKeys(Connection connection, String sql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql, java.sql.Statement.RETURN_GENERATED_KEYS);
        statement.setQueryTimeout(queryTimeoutSeconds);
        return statement;
    }

    /** {@code (?, ?), (?, ?), …} for {@code n} pairs. */
    /** Runs the query and adds the first column of every row to {@code into} (the owners a renewal found). */
    static void collectFirstColumn(PreparedStatement statement, Collection<String> into) throws SQLException {
        try (ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                into.add(rows.getString(1));
            }
        }
    }

    static String pairs(int n) {
        StringBuilder out = new StringBuilder(n * 8);
        for (int i = 0; i < n; i++) {
            out.append(i == 0 ? "(?, ?)" : ", (?, ?)");
        }
        return out.toString();
    }

    /** {@code ?, ?, …} for {@code n} parameters. */
    static String marks(int n) {
        return "?" + ", ?".repeat(Math.max(0, n - 1));
    }
}
