package dev.mortise.lock.jdbc.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * PostgreSQL's wait records: every call one statement, the holder ids one {@code text[]} parameter.
 * A write sweeps in a data-modifying {@code WITH} of the same statement; the sweep leaves the
 * statement's own ids alone (a row changed twice by one statement keeps an unpredictable one of the
 * changes) and skips rows another session has locked, rather than wait for them.
 */
final class PostgresWaitRecordSql extends WaitRecordSql {

    private static final String NOW = PostgresExpressions.NOW;
    private static final String TYPE = "text";
    private static final String IDS = "CAST(? AS TEXT[])";
    /** Over: the statement's own holder ids. */
    private static final String SWEEP_WITH = "WITH swept AS (DELETE FROM ${table} WHERE holder_id IN ("
            + "SELECT holder_id FROM ${table} WHERE expires_at <= " + NOW + " AND holder_id <> ALL(" + IDS + ")"
            + " ORDER BY expires_at LIMIT " + SWEEP + " FOR UPDATE SKIP LOCKED) AND expires_at <= " + NOW + ") ";

    /** Over: ids (sweep), nonce, text, TTL µs, ids. */
    private final String publish = sql(SWEEP_WITH + """
            INSERT INTO ${table} (holder_id, nonce, record_text, expires_at)
            SELECT u.id, ?, ?, CURRENT_TIMESTAMP + CAST(? AS BIGINT) * INTERVAL '1 microsecond'
            FROM unnest(%s) AS u(id)
            ON CONFLICT (holder_id) DO UPDATE SET nonce = EXCLUDED.nonce, record_text = EXCLUDED.record_text,
              expires_at = EXCLUDED.expires_at""".formatted(IDS));
    /** Over: ids (sweep), ids, nonce. */
    private final String remove = sql(SWEEP_WITH + "DELETE FROM ${table} WHERE holder_id = ANY(" + IDS + ") AND nonce = ?");
    private final String read = sql("SELECT holder_id, record_text FROM ${table} WHERE holder_id = ANY(" + IDS + ")"
            + " AND expires_at > " + NOW);

    PostgresWaitRecordSql(TableName waits, int queryTimeoutSeconds) {
        super(waits, queryTimeoutSeconds);
    }

    @Override
    void publish(Connection connection, List<String> holderIds, String nonce, String text, long ttlMicros)
            throws SQLException {
        Array ids = array(connection, TYPE, holderIds);
        try (PreparedStatement statement = prepare(connection, publish)) {
            statement.setArray(1, ids);
            statement.setString(2, nonce);
            statement.setString(3, text);
            statement.setLong(4, ttlMicros);
            statement.setArray(5, ids);
            statement.executeUpdate();
        }
    }

    @Override
    void remove(Connection connection, List<String> holderIds, String nonce) throws SQLException {
        Array ids = array(connection, TYPE, holderIds);
        try (PreparedStatement statement = prepare(connection, remove)) {
            statement.setArray(1, ids);
            statement.setArray(2, ids);
            statement.setString(3, nonce);
            statement.executeUpdate();
        }
    }

    @Override
    Map<String, String> read(Connection connection, List<String> holderIds) throws SQLException {
        return readArray(connection, read, TYPE, holderIds);
    }
}
