package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The {@link WaitSql} of a dialect that records no waiters (waiters poll): removing a marker is
 * the same statement everywhere, and nothing is notified.
 */
abstract class MarkTemplate extends Statements implements WaitSql {

    private final String clearMark = sql("UPDATE ${table} SET waiting_writer = NULL,"
            + " writer_waits_until = NULL WHERE lock_key = ? AND waiting_writer = ?");

    MarkTemplate(TableName table, int queryTimeoutSeconds, boolean binaryKeys) {
        super(table, queryTimeoutSeconds, binaryKeys);
    }

    @Override
    public void clearMark(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement statement = prepare(connection, clearMark)) {
            setKey(statement, 1, key);
            statement.setString(2, owner);
            statement.executeUpdate();
        }
    }
}
