package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

/**
 * PostgreSQL: every operation is one statement, renewAll too for any number of holds.
 * Acquire is an upsert whose conflict branch only fires on a free, expired or own row,
 * wrapped in a CTE that reports the holder's remaining lease when it did not fire. Release
 * notifies the table's channel in the same statement when somebody waits for the key
 * ({@link PgWaiters}), so waiters on other backends wake when it commits.
 */
final class PostgresLockSql extends SqlTemplate {

    private static final String NOW = "CURRENT_TIMESTAMP";
    private static final String LEASE = "(" + NOW + " + CAST(? AS BIGINT) * INTERVAL '1 millisecond')";

    /**
     * The database's clock in microseconds since 1970, read when the row is written (after any
     * wait for the row lock): {@code clock_timestamp()}, not the transaction's start time
     * {@code CURRENT_TIMESTAMP}, so the reading is as late as it can be. Exact: EXTRACT answers
     * numeric from PostgreSQL 14, and a double with microsecond precision before.
     */
    static final String CLOCK_MICROS = "CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000) AS BIGINT)";

    /** Acquire, over: now, lease, the token of a new row, the token of a new holder of an existing row. */
    private static final String ACQUIRE = """
            WITH attempt AS (
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
              VALUES (?, ?, %3$s, %1$s, %2$s, ?)
              ON CONFLICT (lock_key) DO UPDATE SET
                fencing_token = CASE WHEN l.lock_owner = EXCLUDED.lock_owner THEN l.fencing_token ELSE %4$s END,
                acquired_at = CASE WHEN l.lock_owner = EXCLUDED.lock_owner THEN l.acquired_at ELSE EXCLUDED.acquired_at END,
                lock_owner = EXCLUDED.lock_owner,
                expires_at = EXCLUDED.expires_at
              WHERE l.lock_owner IS NULL OR l.expires_at <= %1$s OR l.lock_owner = EXCLUDED.lock_owner
              RETURNING l.fencing_token)
            SELECT fencing_token, CAST(NULL AS BIGINT) FROM attempt
            UNION ALL
            SELECT NULL, CAST(GREATEST(0, CEIL(EXTRACT(EPOCH FROM (h.expires_at - %1$s)) * 1000)) AS BIGINT)
              FROM ${table} h WHERE h.lock_key = ? AND NOT EXISTS (SELECT 1 FROM attempt)""";

    private final String acquire;

    /**
     * One statement for any number of holds: the holds travel as two text arrays, the
     * update joins them on the primary key, and only the positions of the holds it did not
     * renew come back (none, usually).
     */
    private final String renewAll = sql("""
            WITH h AS (SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS text[])) WITH ORDINALITY AS h(k, o, i)),
            renewed AS (
              UPDATE ${table} t SET expires_at = %2$s
              FROM h WHERE t.lock_key = h.k AND t.lock_owner = h.o AND t.expires_at > %1$s
              RETURNING h.i)
            SELECT h.i FROM h WHERE NOT EXISTS (SELECT 1 FROM renewed r WHERE r.i = h.i)""".formatted(NOW, LEASE));

    /** Over: key, owner, channel. Notifies only while somebody waits for the key ({@link PgWaiters}). */
    private final String release = sql("WITH released AS (UPDATE ${table} SET lock_owner = NULL, expires_at = NULL"
            + " WHERE lock_key = ? AND lock_owner = ? AND expires_at > " + NOW + " RETURNING lock_key, waiters)"
            + " SELECT CAST(CASE WHEN " + PgWaiters.ANYONE.formatted("released") + " THEN pg_notify(?, lock_key) END"
            + " AS text) FROM released");

    /** The release of a table without the {@code waiters} column: notifies every time. */
    private final String releaseNotifyingAlways = sql("WITH released AS (UPDATE ${table} SET lock_owner = NULL,"
            + " expires_at = NULL WHERE lock_key = ? AND lock_owner = ? AND expires_at > " + NOW + " RETURNING lock_key)"
            + " SELECT CAST(pg_notify(?, lock_key) AS text) FROM released");

    private final PgWaiters waiters;

    /** @param serverClock whether a new holder's token is {@code max(token + 1, clock in µs)}, see {@link #CLOCK_MICROS} */
    PostgresLockSql(TableName table, int queryTimeoutSeconds, boolean serverClock) {
        super(table, queryTimeoutSeconds, NOW, LEASE);
        String first = serverClock ? CLOCK_MICROS : "1";
        String next = serverClock ? "GREATEST(l.fencing_token + 1, " + CLOCK_MICROS + ")" : "l.fencing_token + 1";
        this.acquire = sql(ACQUIRE.formatted(NOW, LEASE, first, next));
        this.waiters = new PgWaiters(table);
    }

    /** Whether the table records waiters, shared with this backend's {@link PostgresSharedSql}. */
    PgWaiters waiters() {
        return waiters;
    }

    @Override
    public Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, long[] requestedAt)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, acquire)) {
            bindAcquire(statement, key, owner, leaseMillis);
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
    BitSet renewRun(Connection connection, List<Held> run, long leaseMillis) throws SQLException {
        try (PreparedStatement statement = prepare(connection, renewAll)) {
            statement.setArray(1, connection.createArrayOf("text", keys(run)));
            statement.setArray(2, connection.createArrayOf("text", owners(run)));
            statement.setLong(3, leaseMillis);
            return positionsFromOne(statement);
        }
    }

    @Override
    public boolean release(Connection connection, String key, String owner) throws SQLException {
        return waiters.run(withColumn -> {
            try (PreparedStatement statement = prepare(connection, withColumn ? release : releaseNotifyingAlways)) {
                statement.setString(1, key);
                statement.setString(2, owner);
                statement.setString(3, table.channel());
                try (ResultSet rows = statement.executeQuery()) {
                    return rows.next();
                }
            }
        });
    }
}
