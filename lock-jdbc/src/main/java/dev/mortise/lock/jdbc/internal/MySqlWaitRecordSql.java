package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * MySQL's and MariaDB's wait records: a write is its statement and then the sweep, both on one
 * connection (two statements in one call would need the driver's multi-query flag); the upsert takes
 * the holder ids as one JSON array read by {@code JSON_TABLE}, so the text is sent once, and the
 * delete and the read an {@code IN} list, looked up by primary key. Times are {@code UTC_TIMESTAMP(6)}.
 */
final class MySqlWaitRecordSql extends WaitRecordSql {

    private static final String NOW = MySqlExpressions.NOW;

    /** Over: nonce, text, TTL µs, ids as JSON. */
    private final String publish = sql("""
            INSERT INTO ${table} (holder_id, nonce, record_text, expires_at)
            SELECT j.id, ?, ?, %s + INTERVAL ? MICROSECOND
            FROM JSON_TABLE(?, '$[*]' COLUMNS (id VARCHAR(16) CHARACTER SET ascii PATH '$')) j
            ON DUPLICATE KEY UPDATE nonce = VALUES(nonce), record_text = VALUES(record_text),
              expires_at = VALUES(expires_at)""".formatted(NOW));
    private final String sweep = sql("DELETE FROM ${table} WHERE expires_at <= " + NOW
            + " ORDER BY expires_at LIMIT " + SWEEP);

    MySqlWaitRecordSql(TableName waits, int queryTimeoutSeconds) {
        super(waits, queryTimeoutSeconds);
    }

    @Override
    void publish(Connection connection, List<String> holderIds, String nonce, String text, long ttlMicros)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, publish)) {
            statement.setString(1, nonce);
            statement.setString(2, text);
            statement.setLong(3, ttlMicros);
            statement.setString(4, json(holderIds));
            statement.executeUpdate();
        }
        sweep(connection, sweep);
    }

    @Override
    void remove(Connection connection, List<String> holderIds, String nonce) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql("DELETE FROM ${table} WHERE holder_id IN ("
                + marks(holderIds.size()) + ") AND nonce = ?"))) {
            int next = bind(statement, holderIds);
            statement.setString(next, nonce);
            statement.executeUpdate();
        }
        sweep(connection, sweep);
    }

    @Override
    Map<String, String> read(Connection connection, List<String> holderIds) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql("SELECT holder_id, record_text FROM ${table}"
                + " WHERE holder_id IN (" + marks(holderIds.size()) + ") AND expires_at > " + NOW))) {
            bind(statement, holderIds);
            return texts(statement);
        }
    }

    private static String marks(int count) {
        return String.join(", ", java.util.Collections.nCopies(count, "?"));
    }

    /** Binds the ids from parameter 1 on; answers the next parameter's index. */
    private static int bind(PreparedStatement statement, List<String> holderIds) throws SQLException {
        int index = 1;
        for (String id : holderIds) {
            statement.setString(index++, id);
        }
        return index;
    }

    /** {@code ["<id>", …]}, escaped as the renewals' JSON is, so even an id out of contract stays one string. */
    private static String json(List<String> holderIds) {
        HexFormat hex = HexFormat.of();
        StringBuilder out = new StringBuilder(holderIds.size() * 20).append('[');
        for (String id : holderIds) {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append('"');
            MySqlJson.appendJsonString(out, id, hex);
            out.append('"');
        }
        return out.append(']').toString();
    }
}
