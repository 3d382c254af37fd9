package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import static dev.mortise.lock.jdbc.internal.PostgresExpressions.LEASE;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.NOW;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.NOW_US;

/**
 * PostgreSQL: what waiting requests leave on the row, each in one statement. An exclusive request
 * that waits marks the row ({@code waiting_writer}); where the table records waiters
 * ({@link PgWaiters}) and this backend listens for releases, every waiting request's refused
 * attempt also records it in {@code waiters}, and the removal of a marker notifies while somebody
 * else waits (readers the marker held back).
 */
final class PostgresWaitSql extends Statements implements WaitSql {

    /**
     * An exclusive attempt of a request that waits. {@code attempt} is the exclusive upsert
     * ({@link PostgresLockSql#TAKE}), which also clears the request's own marker and record: its
     * WHERE is the one decision, so it returns a row exactly when this statement granted, with the
     * token it wrote. {@code marked} runs only when it did not, on the row {@code attempt} found and
     * still holds locked (rows are never deleted, so it always conflicts and never inserts), and
     * leaves the marker{RECORD: and the record}. Over: key, owner, lease, original key; key, mark,
     * owner{RECORD:, owner, mark}.
     */
    private static final String ACQUIRE_MARKING = """
            WITH attempt AS (
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
              VALUES (?, ?, {FIRST}, {NOW}, {LEASE}, ?)
              ON CONFLICT (lock_key) DO UPDATE SET
            {TAKE_SET},
                waiting_writer = CASE WHEN l.waiting_writer = EXCLUDED.lock_owner THEN NULL ELSE l.waiting_writer END,
                writer_waits_until = CASE WHEN l.waiting_writer = EXCLUDED.lock_owner THEN NULL ELSE l.writer_waits_until END,
                shared_holds = NULL{FORGET}
              WHERE {TAKE}
              RETURNING l.fencing_token),
            marked AS (
              INSERT INTO ${table} AS l (lock_key, fencing_token)
              SELECT CAST(? AS text), 0 WHERE NOT EXISTS (SELECT 1 FROM attempt)
              ON CONFLICT (lock_key) DO UPDATE SET
                writer_waits_until = {NOW} + CAST(? AS BIGINT) * INTERVAL '1 millisecond',
                waiting_writer = CAST(? AS text){RECORD}
              RETURNING l.expires_at)
            SELECT fencing_token, CAST(NULL AS BIGINT) FROM attempt
            UNION ALL
            SELECT NULL, {REMAINING} FROM marked h""";

    /**
     * Over: owner, owner, owner, key, owner, owner, channel. Removes the waiter's marker if it is
     * still the row's, and its entry; notifies while somebody else waits (readers the marker held back).
     */
    private final String clearMark = sql("WITH cleared AS (UPDATE ${table} t SET"
            + " waiting_writer = CASE WHEN t.waiting_writer = ? THEN NULL ELSE t.waiting_writer END,"
            + " writer_waits_until = CASE WHEN t.waiting_writer = ? THEN NULL ELSE t.writer_waits_until END,"
            + " waiters = NULLIF(" + PgWaiters.live("t") + " - CAST(? AS text), '{}')"
            + " WHERE t.lock_key = ? AND (t.waiting_writer = ? OR t.waiters ->> CAST(? AS text) IS NOT NULL)"
            + " RETURNING t.lock_key, t.waiters)"
            + " SELECT CAST(CASE WHEN " + PgWaiters.ANYONE.formatted("cleared") + " THEN pg_notify(?, lock_key) END"
            + " AS text) FROM cleared");

    /** clearMark on a table without the {@code waiters} column, over: key, owner, channel; always notifies. */
    private final String clearMarkNotifyingAlways = sql("WITH cleared AS (UPDATE ${table} SET waiting_writer = NULL,"
            + " writer_waits_until = NULL WHERE lock_key = ? AND waiting_writer = ? RETURNING lock_key)"
            + " SELECT CAST(pg_notify(?, lock_key) AS text) FROM cleared");

    /** Over: owner, key, owner. A reader that gave up removes its entry; nobody is notified. */
    private final String forgetWaiter = sql("UPDATE ${table} t SET waiters = NULLIF(" + PgWaiters.live("t")
            + " - CAST(? AS text), '{}') WHERE t.lock_key = ? AND t.waiters ->> CAST(? AS text) IS NOT NULL");

    private final String acquireMarking;
    private final String acquireMarkingUnrecorded;
    private final PgWaiters waiters;
    private final boolean record;

    /**
     * @param first   the token of a new row, {@code next} that of a new holder of row {@code l}
     * @param waiters whether the table records waiters, shared with this backend's other statements
     * @param record  whether this backend's waiting requests record themselves (it listens for releases)
     */
    PostgresWaitSql(TableName table, int queryTimeoutSeconds, String first, String next, PgWaiters waiters,
                    boolean record) {
        super(table, queryTimeoutSeconds, false);
        this.waiters = waiters;
        this.record = record;
        String marking = ACQUIRE_MARKING.replace("{TAKE_SET}", PostgresLockSql.TAKE_SET)
                .replace("{TAKE}", PostgresLockSql.TAKE).replace("{REMAINING}", PostgresExpressions.remainingMillis(
                        "h.expires_at")).replace("{FIRST}", first).replace("{NEXT}", next).replace("{LEASE}", LEASE);
        this.acquireMarking = sql(marking
                .replace("{FORGET}", ",\n    waiters = NULLIF(" + PgWaiters.live("l") + " - EXCLUDED.lock_owner, '{}')")
                .replace("{RECORD}", ",\n    waiters = " + PgWaiters.live("l")
                        + " || jsonb_build_object(CAST(? AS text), {NOW_US} + CAST(? AS BIGINT) * 1000)")
                .replace("{NOW_US}", NOW_US).replace("{NOW}", NOW));
        this.acquireMarkingUnrecorded = sql(marking.replace("{FORGET}", "").replace("{RECORD}", "")
                .replace("{NOW}", NOW));
    }

    @Override
    public LockSql.Outcome acquireMarking(Connection connection, StoredKey key, String owner, long leaseMillis,
                                          long markMillis, long[] requestedAt) throws SQLException {
        return waiters.run(withColumn -> {
            boolean recorded = withColumn && record;
            try (PreparedStatement statement = prepare(connection, recorded ? acquireMarking
                    : acquireMarkingUnrecorded)) {
                statement.setString(1, key.value());
                statement.setString(2, owner);
                statement.setLong(3, leaseMillis);
                statement.setString(4, key.original());
                statement.setString(5, key.value());
                statement.setLong(6, markMillis);
                statement.setString(7, owner);
                if (recorded) {
                    statement.setString(8, owner);
                    statement.setLong(9, markMillis);
                }
                requestedAt[0] = System.nanoTime();
                return PostgresAnswers.read(statement);
            }
        });
    }

    @Override
    public boolean recordsWaiters() {
        return record;
    }

    @Override
    public void forgetWaiter(Connection connection, String key, String owner) throws SQLException {
        waiters.run(withColumn -> {
            if (withColumn) {
                try (PreparedStatement statement = prepare(connection, forgetWaiter)) {
                    statement.setString(1, owner);
                    statement.setString(2, key);
                    statement.setString(3, owner);
                    statement.executeUpdate();
                }
            }
            return null;
        });
    }

    @Override
    public void clearMark(Connection connection, String key, String owner) throws SQLException {
        waiters.run(withColumn -> {
            try (PreparedStatement statement = prepare(connection, withColumn ? clearMark : clearMarkNotifyingAlways)) {
                if (withColumn) {
                    statement.setString(1, owner);
                    statement.setString(2, owner);
                    statement.setString(3, owner);
                    statement.setString(4, key);
                    statement.setString(5, owner);
                    statement.setString(6, owner);
                    statement.setString(7, table.channel());
                } else {
                    statement.setString(1, key);
                    statement.setString(2, owner);
                    statement.setString(3, table.channel());
                }
                statement.executeQuery().close();
            }
            return null;
        });
    }
}
