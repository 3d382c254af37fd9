package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** What the dialects' {@link SharedSql} statements share: table name in, query timeout on, key binding. */
abstract class SharedTemplate implements SharedSql {

    /** The owner of the shared row, as an SQL literal (a constant: nothing user-given). */
    static final String SHARED = "'" + SHARED_OWNER + "'";

    final TableName table;
    private final int queryTimeoutSeconds;

    SharedTemplate(TableName table, int queryTimeoutSeconds) {
        this.table = table;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
    }

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

    /** Binds a stored key: as text, unless the dialect's key column wants something else. */
    void setKey(PreparedStatement statement, int index, String key) throws SQLException {
        statement.setString(index, key);
    }

    @Override
    public void clearMark(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql("UPDATE ${table} SET waiting_writer = NULL,"
                + " writer_waits_until = NULL WHERE lock_key = ? AND waiting_writer = ?"))) {
            setKey(statement, 1, key);
            statement.setString(2, owner);
            statement.executeUpdate();
        }
    }
}
