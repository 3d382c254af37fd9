package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

import static dev.mortise.lock.jdbc.internal.PostgresExpressions.LEASE;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.NOW;

/**
 * PostgreSQL: every operation is one statement, renewAll too for any number of holds.
 * Acquire is an upsert whose conflict branch only fires on a free, expired or own row,
 * wrapped in a CTE that reports the holder's remaining lease when it did not fire
 * ({@link PostgresAnswers}). Release notifies the table's channel in the same statement when
 * somebody waits for the key ({@link PgWaiters}), so waiters on other backends wake when it commits.
 */
final class PostgresLockSql extends SqlTemplate {

    /** The exclusive take of row {@code l} by the owner in {@code EXCLUDED}: free, expired, or its own. */
    static final String TAKE = "(l.lock_owner IS NULL OR l.expires_at <= " + NOW
            + " OR l.lock_owner = EXCLUDED.lock_owner)";

    /**
     * The exclusive upsert's assignments over: the token of a new holder of an existing row ({NEXT});
     * an own row keeps its token and acquired-at (the same-owner branch).
     */
    static final String TAKE_SET = """
                fencing_token = CASE WHEN l.lock_owner = EXCLUDED.lock_owner THEN l.fencing_token ELSE {NEXT} END,
                acquired_at = CASE WHEN l.lock_owner = EXCLUDED.lock_owner THEN l.acquired_at ELSE EXCLUDED.acquired_at END,
                lock_owner = EXCLUDED.lock_owner,
                expires_at = EXCLUDED.expires_at""";

    /** Acquire, over: key, owner, lease, original key, key (busy read). */
    private static final String ACQUIRE = """
            WITH attempt AS (
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
              VALUES (?, ?, {FIRST}, {NOW}, {LEASE}, ?)
              ON CONFLICT (lock_key) DO UPDATE SET
            {TAKE_SET}
              WHERE {TAKE}
              RETURNING l.fencing_token)
            SELECT fencing_token, CAST(NULL AS BIGINT) FROM attempt
            UNION ALL
            SELECT NULL, {REMAINING} FROM ${table} h WHERE h.lock_key = ? AND NOT EXISTS (SELECT 1 FROM attempt)""";

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

    /** @param first the token of a new row, {@code next} that of a new holder of row {@code l} */
    PostgresLockSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, false, NOW, LEASE);
        this.acquire = sql(ACQUIRE.replace("{TAKE_SET}", TAKE_SET).replace("{TAKE}", TAKE)
                .replace("{REMAINING}", PostgresExpressions.remainingMillis("h.expires_at"))
                .replace("{FIRST}", first).replace("{NEXT}", next).replace("{LEASE}", LEASE).replace("{NOW}", NOW));
        this.waiters = new PgWaiters(table);
    }

    /** Whether the table records waiters, shared with this backend's other PostgreSQL statements. */
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
            return PostgresAnswers.read(statement);
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
