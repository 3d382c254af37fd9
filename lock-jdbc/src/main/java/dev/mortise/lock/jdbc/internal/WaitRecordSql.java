package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.spi.SqlDatabase;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The statements of the wait-record table ({@link TableName#waits()}) in one dialect: an upsert of
 * many holder ids, a compare-and-delete by nonce, a read of the live ones, every expiry computed and
 * judged by the database's clock. Writes also delete up to {@link #SWEEP} expired rows, oldest first
 * by the index on {@code expires_at}, so no row outlives its expiry by more than the next write.
 * Holder ids arrive without duplicates. Immutable and thread-safe.
 */
abstract class WaitRecordSql extends Statements {

    /** The most expired rows one write deletes: bounded, so a write after a long outage stays short. */
    static final int SWEEP = 256;

    WaitRecordSql(TableName waits, int queryTimeoutSeconds) {
        super(waits, queryTimeoutSeconds, false);
    }

    /** The statements of {@code dialect} over the wait table {@code waits}. */
    static WaitRecordSql of(SqlDatabase dialect, TableName waits, int queryTimeoutSeconds) {
        return switch (dialect) {
            case POSTGRESQL -> new PostgresWaitRecordSql(waits, queryTimeoutSeconds);
            case MYSQL -> new MySqlWaitRecordSql(waits, queryTimeoutSeconds);
            case H2 -> new H2WaitRecordSql(waits, queryTimeoutSeconds);
        };
    }

    /** Writes {@code text} and {@code nonce} under each id, replacing what it had, expiring {@code ttlMicros} from now. */
    abstract void publish(Connection connection, List<String> holderIds, String nonce, String text, long ttlMicros)
            throws SQLException;

    /** Deletes the rows of {@code holderIds} that bear {@code nonce}. */
    abstract void remove(Connection connection, List<String> holderIds, String nonce) throws SQLException;

    /** The unexpired rows of {@code holderIds}, text by holder id. Writes nothing. */
    abstract Map<String, String> read(Connection connection, List<String> holderIds) throws SQLException;

    /** Runs {@code statement}, whose result is (holder id, text) rows, into a map. */
    static Map<String, String> texts(PreparedStatement statement) throws SQLException {
        Map<String, String> found = new HashMap<>();
        try (ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                found.put(rows.getString(1), rows.getString(2));
            }
        }
        return found;
    }

    /** The ids as one SQL array of element type {@code type}, for the dialects that take them so. */
    static Array array(Connection connection, String type, List<String> holderIds) throws SQLException {
        return connection.createArrayOf(type, holderIds.toArray());
    }

    /** Reads with {@code read}, whose one parameter is the ids as an array of {@code type}. */
    final Map<String, String> readArray(Connection connection, String read, String type, List<String> holderIds)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, read)) {
            statement.setArray(1, array(connection, type, holderIds));
            return texts(statement);
        }
    }

    /** Deletes up to {@link #SWEEP} expired rows in a statement of its own, where one statement cannot do both. */
    final void sweep(Connection connection, String sweep) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sweep)) {
            statement.executeUpdate();
        }
    }
}
