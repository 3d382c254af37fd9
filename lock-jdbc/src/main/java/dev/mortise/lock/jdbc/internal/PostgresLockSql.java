package dev.mortise.lock.jdbc.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL: every operation is one statement. Acquire is an upsert whose conflict branch
 * only fires on a free, expired or own row, wrapped in a CTE that reports the holder's
 * remaining lease when it did not fire. Release notifies the table's channel in the same
 * statement, so waiters on other backends wake when it commits.
 */
final class PostgresLockSql extends SqlTemplate {

    private static final String NOW = "CURRENT_TIMESTAMP";
    private static final String LEASE = "(" + NOW + " + CAST(? AS BIGINT) * INTERVAL '1 millisecond')";

    private final String acquire = sql("""
            WITH attempt AS (
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
              VALUES (?, ?, 1, %1$s, %2$s, ?)
              ON CONFLICT (lock_key) DO UPDATE SET
                fencing_token = CASE WHEN l.lock_owner = EXCLUDED.lock_owner THEN l.fencing_token ELSE l.fencing_token + 1 END,
                acquired_at = CASE WHEN l.lock_owner = EXCLUDED.lock_owner THEN l.acquired_at ELSE EXCLUDED.acquired_at END,
                lock_owner = EXCLUDED.lock_owner,
                expires_at = EXCLUDED.expires_at
              WHERE l.lock_owner IS NULL OR l.expires_at <= %1$s OR l.lock_owner = EXCLUDED.lock_owner
              RETURNING l.fencing_token)
            SELECT fencing_token, CAST(NULL AS BIGINT) FROM attempt
            UNION ALL
            SELECT NULL, CAST(GREATEST(0, CEIL(EXTRACT(EPOCH FROM (h.expires_at - %1$s)) * 1000)) AS BIGINT)
              FROM ${table} h WHERE h.lock_key = ? AND NOT EXISTS (SELECT 1 FROM attempt)""".formatted(NOW, LEASE));

    private final String renew = sql("UPDATE ${table} SET expires_at = " + LEASE
            + " WHERE lock_key = ? AND lock_owner = ? AND expires_at > " + NOW);

    private final String renewAll = sql("UPDATE ${table} SET expires_at = " + LEASE
            + " WHERE (lock_key, lock_owner) IN (SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS text[])))"
            + " AND expires_at > " + NOW + " RETURNING lock_owner");

    private final String release = sql("WITH released AS (UPDATE ${table} SET lock_owner = NULL, expires_at = NULL"
            + " WHERE lock_key = ? AND lock_owner = ? AND expires_at > " + NOW + " RETURNING lock_key)"
            + " SELECT CAST(pg_notify(?, lock_key) AS text) FROM released");

    PostgresLockSql(TableName table, int queryTimeoutSeconds) {
        super(table, queryTimeoutSeconds);
    }

    @Override
    public Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, long[] requestedAt)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, acquire)) {
            statement.setString(1, key.value());
            statement.setString(2, owner);
            statement.setLong(3, leaseMillis);
            statement.setString(4, key.original());
            statement.setString(5, key.value());
            requestedAt[0] = System.nanoTime();
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    // The conflicting row was committed after our snapshot began: busy, holder unknown.
                    return Outcome.busy(-1);
                }
                long token = rows.getLong(1);
                return rows.wasNull() ? Outcome.busy(rows.getLong(2)) : Outcome.granted(token);
            }
        }
    }

    @Override
    public boolean renew(Connection connection, String key, String owner, long leaseMillis) throws SQLException {
        try (PreparedStatement statement = prepare(connection, renew)) {
            statement.setLong(1, leaseMillis);
            statement.setString(2, key);
            statement.setString(3, owner);
            return statement.executeUpdate() == 1;
        }
    }

    @Override
    public Set<String> renewAll(Connection connection, List<Held> holds, long leaseMillis) throws SQLException {
        String[] keys = holds.stream().map(Held::key).toArray(String[]::new);
        String[] owners = holds.stream().map(Held::owner).toArray(String[]::new);
        Set<String> renewed = new HashSet<>();
        try (PreparedStatement statement = prepare(connection, renewAll)) {
            Array keyArray = connection.createArrayOf("text", keys);
            Array ownerArray = connection.createArrayOf("text", owners);
            statement.setLong(1, leaseMillis);
            statement.setArray(2, keyArray);
            statement.setArray(3, ownerArray);
            collectFirstColumn(statement, renewed);
        }
        return renewed;
    }

    @Override
    public boolean release(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement statement = prepare(connection, release)) {
            statement.setString(1, key);
            statement.setString(2, owner);
            statement.setString(3, table.channel());
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next();
            }
        }
    }
}
