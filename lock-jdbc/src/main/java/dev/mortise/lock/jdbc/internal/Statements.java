package dev.mortise.lock.jdbc.internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * What every dialect's statements share: the table name in the text, the query timeout on
 * every statement, and how a stored key is bound (as text, or as its UTF-8 bytes where the key
 * column is binary: MySQL/MariaDB's {@code VARBINARY}, so that clients configured with
 * different character sets still meet on the same row). Immutable and thread-safe.
 */
abstract class Statements {

    final TableName table;
    private final int queryTimeoutSeconds;
    private final boolean binaryKeys;

    Statements(TableName table, int queryTimeoutSeconds, boolean binaryKeys) {
        this.table = table;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        this.binaryKeys = binaryKeys;
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

    final PreparedStatement prepare(Connection connection, NamedSql sql) throws SQLException {
        return prepare(connection, sql.sql());
    }

    final PreparedStatement prepareReturningKeys(Connection connection, String sql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql, java.sql.Statement.RETURN_GENERATED_KEYS);
        statement.setQueryTimeout(queryTimeoutSeconds);
        return statement;
    }

    /** Binds a stored key as the key column wants it. */
    final void setKey(PreparedStatement statement, int index, String key) throws SQLException {
        if (binaryKeys) {
            statement.setBytes(index, key.getBytes(StandardCharsets.UTF_8));
        } else {
            statement.setString(index, key);
        }
    }

    /** A stored key as a parameter value: text, or its UTF-8 bytes for a binary key column. */
    final Object key(String key) {
        return binaryKeys ? key.getBytes(StandardCharsets.UTF_8) : key;
    }
}
