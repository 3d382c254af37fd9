package dev.mortise.lock.jdbc.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * H2's wait records: the holder ids one {@code VARCHAR ARRAY} parameter ({@code = ANY(?)} is looked up
 * by index); a write is its statement and then the sweep (H2 has no data-modifying {@code WITH}), both
 * on one connection.
 */
final class H2WaitRecordSql extends WaitRecordSql {

    private static final String NOW = H2Expressions.NOW;
    private static final String TYPE = "VARCHAR";
    private static final String IDS = "CAST(? AS VARCHAR ARRAY)";
    /** SQLState of a unique key violated: two first writes of one new holder id at once, one of which then updates. */
    private static final String DUPLICATE_KEY = "23505";

    /** Over: nonce, text, TTL µs, ids. */
    private final String publish = sql("MERGE INTO ${table} (holder_id, nonce, record_text, expires_at) KEY (holder_id)"
            + " SELECT u.id, ?, ?, DATEADD(MICROSECOND, CAST(? AS BIGINT), " + NOW + ") FROM UNNEST(" + IDS + ") AS u(id)");
    /** Over: ids, nonce. */
    private final String remove = sql("DELETE FROM ${table} WHERE holder_id = ANY(" + IDS + ") AND nonce = ?");
    private final String read = sql("SELECT holder_id, record_text FROM ${table} WHERE holder_id = ANY(" + IDS + ")"
            + " AND expires_at > " + NOW);
    private final String sweep = sql("DELETE FROM ${table} WHERE expires_at <= " + NOW
            + " FETCH FIRST " + SWEEP + " ROWS ONLY");

    H2WaitRecordSql(TableName waits, int queryTimeoutSeconds) {
        super(waits, queryTimeoutSeconds);
    }

    @Override
    void publish(Connection connection, List<String> holderIds, String nonce, String text, long ttlMicros)
            throws SQLException {
        Array ids = array(connection, TYPE, holderIds);
        for (int attempt = 1; ; attempt++) {
            try (PreparedStatement statement = prepare(connection, publish)) {
                statement.setString(1, nonce);
                statement.setString(2, text);
                statement.setLong(3, ttlMicros);
                statement.setArray(4, ids);
                statement.executeUpdate();
                break;
            } catch (SQLException e) {
                if (attempt == 3 || !DUPLICATE_KEY.equals(e.getSQLState())) {
                    throw e;
                }
            }
        }
        sweep(connection, sweep);
    }

    @Override
    void remove(Connection connection, List<String> holderIds, String nonce) throws SQLException {
        try (PreparedStatement statement = prepare(connection, remove)) {
            statement.setArray(1, array(connection, TYPE, holderIds));
            statement.setString(2, nonce);
            statement.executeUpdate();
        }
        sweep(connection, sweep);
    }

    @Override
    Map<String, String> read(Connection connection, List<String> holderIds) throws SQLException {
        return readArray(connection, read, TYPE, holderIds);
    }
}
