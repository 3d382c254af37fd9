package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

/**
 * PostgreSQL: readers are a {@code jsonb} object {@code {owner: expiry µs}} in the row. Every
 * operation is one statement. The conflict branch and the updates read only the row they write,
 * so when a statement waits for a concurrent writer of the row, PostgreSQL re-checks it against
 * the row as that writer left it. Release of the last reader and removal of a marker notify the
 * table's channel, as an exclusive release does, while somebody waits for the key ({@link PgWaiters}):
 * the attempts of waiting requests (exclusive and shared) record the waiter in the row.
 */
final class PostgresSharedSql extends SharedTemplate {

    private static final String NOW = "CURRENT_TIMESTAMP";
    static final String NOW_US = "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000000) AS BIGINT)";
    private static final String LEASE = "(" + NOW + " + CAST(? AS BIGINT) * INTERVAL '1 millisecond')";
    /** A reader's expiry in µs, over one parameter of milliseconds. */
    private static final String EXPIRY_US = "(" + NOW_US + " + CAST(? AS BIGINT) * 1000)";
    /** A time from µs since 1970, exactly. */
    private static final String FROM_US = "(TIMESTAMP WITH TIME ZONE 'epoch' + (%s) * INTERVAL '1 microsecond')";
    static final String LIVE_SHARED = "(l.lock_owner = " + SHARED + " AND l.expires_at > " + NOW + ")";
    /** The unexpired entries of {@code %s}, or NULL if none. */
    static final String PRUNED = "(SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(%s) e"
            + " WHERE CAST(e.value AS BIGINT) > " + NOW_US + ")";
    private static final String MAX_US = "(SELECT MAX(CAST(e.value AS BIGINT)) FROM jsonb_each(%s) e)";
    private static final String BUSY_REMAINING = "CAST(GREATEST(0, CEIL(EXTRACT(EPOCH FROM (CASE WHEN h.lock_owner"
            + " IS NOT NULL AND h.expires_at > " + NOW + " THEN h.expires_at ELSE h.writer_waits_until END - " + NOW
            + ")) * 1000)) AS BIGINT)";

    /** Over: key, lease, original key, owner, lease (entry), key (busy read). */
    private static final String ACQUIRE_SHARED = """
            WITH attempt AS (
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key, shared_holds)
              VALUES (?, %1$s, %2$s, %3$s, %4$s, ?, jsonb_build_object(CAST(? AS text), %5$s))
              ON CONFLICT (lock_key) DO UPDATE SET
                fencing_token = %6$s,
                acquired_at = CASE WHEN %7$s THEN l.acquired_at ELSE %3$s END,
                shared_holds = CASE WHEN %7$s THEN COALESCE(%8$s, '{}') || EXCLUDED.shared_holds ELSE EXCLUDED.shared_holds END,
                expires_at = CASE WHEN %7$s THEN GREATEST(l.expires_at, EXCLUDED.expires_at) ELSE EXCLUDED.expires_at END,
                lock_owner = %1$s
              WHERE (l.lock_owner IS NULL OR l.expires_at <= %3$s OR l.lock_owner = %1$s)
                AND (l.waiting_writer IS NULL OR l.writer_waits_until <= %3$s)
              RETURNING l.fencing_token)
            SELECT fencing_token, CAST(NULL AS BIGINT) FROM attempt
            UNION ALL
            SELECT NULL, %9$s FROM ${table} h WHERE h.lock_key = ? AND NOT EXISTS (SELECT 1 FROM attempt)""";

    /**
     * Over: key, owner, lease, original key, mark, owner (answer). TAKE is the exclusive acquire's
     * condition; every SET reads the row as it was, so their order does not matter.
     */
    private static final String ACQUIRE_MARKING = """
            WITH attempt AS (
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
              VALUES (?, ?, %2$s, %1$s, %4$s, ?)
              ON CONFLICT (lock_key) DO UPDATE SET
                fencing_token = CASE WHEN %5$s THEN CASE WHEN l.lock_owner = EXCLUDED.lock_owner THEN l.fencing_token
                  ELSE %3$s END ELSE l.fencing_token END,
                acquired_at = CASE WHEN %5$s THEN CASE WHEN l.lock_owner = EXCLUDED.lock_owner THEN l.acquired_at
                  ELSE EXCLUDED.acquired_at END ELSE l.acquired_at END,
                writer_waits_until = CASE WHEN NOT %5$s THEN %1$s + CAST(? AS BIGINT) * INTERVAL '1 millisecond'
                  WHEN l.waiting_writer = EXCLUDED.lock_owner THEN NULL ELSE l.writer_waits_until END,
                waiting_writer = CASE WHEN NOT %5$s THEN EXCLUDED.lock_owner
                  WHEN l.waiting_writer = EXCLUDED.lock_owner THEN NULL ELSE l.waiting_writer END,
                shared_holds = CASE WHEN %5$s THEN NULL ELSE l.shared_holds END,
                lock_owner = CASE WHEN %5$s THEN EXCLUDED.lock_owner ELSE l.lock_owner END,
                expires_at = CASE WHEN %5$s THEN EXCLUDED.expires_at ELSE l.expires_at END%6$s
              RETURNING l.lock_owner, l.fencing_token, l.expires_at)
            SELECT CASE WHEN lock_owner = ? THEN fencing_token END,
                   CAST(GREATEST(0, CEIL(EXTRACT(EPOCH FROM (expires_at - %1$s)) * 1000)) AS BIGINT) FROM attempt""";

    /**
     * What ACQUIRE_MARKING adds where the table records waiters ({@link PgWaiters}), over: mark. A
     * granted attempt removes its own entry, a refused one adds it, lasting as long as its marker.
     */
    private static final String MARKING_WAITERS = """
            ,
                waiters = CASE WHEN %1$s THEN NULLIF(%2$s - EXCLUDED.lock_owner, '{}')
                  ELSE %2$s || jsonb_build_object(EXCLUDED.lock_owner, %3$s + CAST(? AS BIGINT) * 1000) END""";

    /**
     * A shared attempt of a request that waits, where the table records waiters. {@code attempt} is
     * ACQUIRE_SHARED's upsert, which also removes the waiter's entry: its WHERE (OK, %11$s) is the one
     * decision, so it returns a row exactly when this statement granted, with the token it wrote.
     * {@code waited} runs only when it did not, on the row {@code attempt} found and still holds locked
     * (rows are never deleted, so it always conflicts and never inserts), and adds the waiter's entry.
     * The answer is never "the owner's entry is present": after a broken connection JdbcCalls sends the
     * request again, and the first send may have left that entry, with its own expiry, in a row this
     * statement refuses (issue 28). Over: key, lease, original key, owner, lease (entry), owner
     * (removed); key, owner (added), mark.
     */
    private static final String ACQUIRE_SHARED_WAITING = """
            WITH attempt AS (
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key, shared_holds)
              VALUES (?, %1$s, %2$s, %3$s, %4$s, ?, jsonb_build_object(CAST(? AS text), %5$s))
              ON CONFLICT (lock_key) DO UPDATE SET
                fencing_token = %6$s,
                acquired_at = CASE WHEN %7$s THEN l.acquired_at ELSE %3$s END,
                shared_holds = CASE WHEN %7$s THEN COALESCE(%8$s, '{}') || EXCLUDED.shared_holds ELSE EXCLUDED.shared_holds END,
                expires_at = CASE WHEN %7$s THEN GREATEST(l.expires_at, EXCLUDED.expires_at) ELSE EXCLUDED.expires_at END,
                lock_owner = %1$s,
                waiters = NULLIF(%9$s - CAST(? AS text), '{}')
              WHERE %11$s
              RETURNING l.fencing_token),
            waited AS (
              INSERT INTO ${table} AS l (lock_key, fencing_token)
              SELECT CAST(? AS text), 0 WHERE NOT EXISTS (SELECT 1 FROM attempt)
              ON CONFLICT (lock_key) DO UPDATE SET
                waiters = %9$s || jsonb_build_object(CAST(? AS text), %10$s + CAST(? AS BIGINT) * 1000)
              RETURNING l.lock_owner, l.expires_at, l.writer_waits_until)
            SELECT fencing_token, CAST(NULL AS BIGINT) FROM attempt
            UNION ALL
            SELECT NULL, %12$s FROM waited h""";

    private static final String TAKE = "(l.lock_owner IS NULL OR l.expires_at <= " + NOW
            + " OR l.lock_owner = EXCLUDED.lock_owner)";

    /** Whether {@code %s}'s entry in the row is unexpired (over one owner parameter). */
    private static final String OWN_ENTRY_LIVE = "lock_owner = " + SHARED + " AND expires_at > " + NOW
            + " AND CAST(shared_holds ->> CAST(? AS text) AS BIGINT) > " + NOW_US;

    /** Over: owner, lease, key, owner. */
    private final String renew = sql(("UPDATE ${table} t SET (shared_holds, expires_at) = (SELECT x.h, "
            + FROM_US.formatted(MAX_US.formatted("x.h")) + " FROM (SELECT COALESCE(" + PRUNED.formatted("t.shared_holds")
            + ", '{}') || jsonb_build_object(CAST(? AS text), " + EXPIRY_US + ") AS h) x)"
            + " WHERE lock_key = ? AND " + OWN_ENTRY_LIVE));

    /** Over: owner, key, owner, channel. Notifies only when the row became free (and, with %s, somebody waits). */
    private static final String RELEASE = "WITH released AS (UPDATE ${table} t SET (shared_holds, expires_at, lock_owner) ="
            + " (SELECT x.h, " + FROM_US.formatted("x.m") + ", CASE WHEN x.h IS NULL THEN NULL ELSE " + SHARED + " END"
            + " FROM (SELECT y.h, " + MAX_US.formatted("y.h") + " AS m FROM (SELECT NULLIF("
            + PRUNED.formatted("t.shared_holds") + " - CAST(? AS text), '{}') AS h) y) x)"
            + " WHERE lock_key = ? AND " + OWN_ENTRY_LIVE + " RETURNING lock_key, lock_owner%s)"
            + " SELECT CAST(CASE WHEN lock_owner IS NULL%s THEN pg_notify(?, lock_key) END AS text) FROM released";
    private final String release = sql(RELEASE.formatted(", waiters", " AND " + PgWaiters.ANYONE.formatted("released")));
    private final String releaseNotifyingAlways = sql(RELEASE.formatted("", ""));

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

    /** Over: owner, key, owner. A reader that gave up removes its entry; nobody is notified. */
    private final String forgetWaiter = sql("UPDATE ${table} t SET waiters = NULLIF(" + PgWaiters.live("t")
            + " - CAST(? AS text), '{}') WHERE t.lock_key = ? AND t.waiters ->> CAST(? AS text) IS NOT NULL");

    /** clearMark on a table without the {@code waiters} column, over: key, owner, channel; always notifies. */
    private final String clearMarkNotifyingAlways = sql("WITH cleared AS (UPDATE ${table} SET waiting_writer = NULL,"
            + " writer_waits_until = NULL WHERE lock_key = ? AND waiting_writer = ? RETURNING lock_key)"
            + " SELECT CAST(pg_notify(?, lock_key) AS text) FROM cleared");

    /**
     * Over: keys, owners, lease, lease. The holds are grouped by key (two readers of one key in
     * one client are one row to update, and an UPDATE … FROM updates a row once); a hold was
     * renewed exactly when its entry now holds the new expiry, which no other statement writes.
     */
    private final String renewAll = sql("""
            WITH h AS (SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS text[])) WITH ORDINALITY AS h(k, o, i)),
            g AS (SELECT k, array_agg(o) AS os FROM h GROUP BY k),
            n AS (SELECT %1$s AS us),
            renewed AS (
              UPDATE ${table} t SET (shared_holds, expires_at) = (SELECT x.h, %2$s FROM (SELECT COALESCE(%3$s, '{}')
                  || COALESCE((SELECT jsonb_object_agg(o.o, n.us) FROM unnest(g.os) AS o(o)
                               WHERE CAST(t.shared_holds ->> o.o AS BIGINT) > %4$s), '{}') AS h) x)
              FROM g, n WHERE t.lock_key = g.k AND t.lock_owner = %5$s AND t.expires_at > %6$s
              RETURNING t.lock_key, t.shared_holds)
            SELECT h.i FROM h WHERE NOT EXISTS (SELECT 1 FROM renewed r, n
              WHERE r.lock_key = h.k AND CAST(r.shared_holds ->> h.o AS BIGINT) = n.us)"""
            .formatted(EXPIRY_US, FROM_US.formatted(MAX_US.formatted("x.h")), PRUNED.formatted("t.shared_holds"),
                    NOW_US, SHARED, NOW));

    private final String acquireShared;
    private final String acquireSharedWaiting;
    private final String acquireMarking;
    private final String acquireMarkingUnrecorded;
    private final PgWaiters waiters;
    private final boolean record;

    /**
     * @param waiters whether the table records waiters, shared with this backend's {@link PostgresLockSql}
     * @param record  whether this backend's waiting requests record themselves (it listens for releases)
     */
    PostgresSharedSql(TableName table, int queryTimeoutSeconds, String first, String next, PgWaiters waiters,
                      boolean record) {
        super(table, queryTimeoutSeconds);
        this.waiters = waiters;
        this.record = record;
        this.acquireShared = sql(ACQUIRE_SHARED.formatted(SHARED, first, NOW, LEASE, EXPIRY_US, next, LIVE_SHARED,
                PRUNED.formatted("l.shared_holds"), BUSY_REMAINING));
        String ok = "((l.lock_owner IS NULL OR l.expires_at <= " + NOW + " OR l.lock_owner = " + SHARED + ")"
                + " AND (l.waiting_writer IS NULL OR l.writer_waits_until <= " + NOW + "))";
        this.acquireSharedWaiting = sql(ACQUIRE_SHARED_WAITING.formatted(SHARED, first, NOW, LEASE, EXPIRY_US, next,
                LIVE_SHARED, PRUNED.formatted("l.shared_holds"), PgWaiters.live("l"), NOW_US, ok, BUSY_REMAINING));
        this.acquireMarking = sql(ACQUIRE_MARKING.formatted(NOW, first, next, LEASE, TAKE,
                MARKING_WAITERS.formatted(TAKE, PgWaiters.live("l"), NOW_US)));
        this.acquireMarkingUnrecorded = sql(ACQUIRE_MARKING.formatted(NOW, first, next, LEASE, TAKE, ""));
    }

    @Override
    public LockSql.Outcome acquireShared(Connection connection, StoredKey key, String owner, long leaseMillis,
                                         long[] requestedAt) throws SQLException {
        try (PreparedStatement statement = prepare(connection, acquireShared)) {
            statement.setString(1, key.value());
            statement.setLong(2, leaseMillis);
            statement.setString(3, key.original());
            statement.setString(4, owner);
            statement.setLong(5, leaseMillis);
            statement.setString(6, key.value());
            requestedAt[0] = System.nanoTime();
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    return LockSql.Outcome.busy(-1); // the conflicting row was committed after our snapshot began
                }
                long token = rows.getLong(1);
                return rows.wasNull() ? LockSql.Outcome.busy(rows.getLong(2)) : LockSql.Outcome.granted(token);
            }
        }
    }

    /**
     * As {@link #acquireShared}, and where the table records waiters a refused attempt leaves the
     * waiter's entry for {@code markMillis} (a granted one removes it): one statement.
     */
    @Override
    public LockSql.Outcome acquireSharedWaiting(Connection connection, StoredKey key, String owner, long leaseMillis,
                                               long markMillis, long[] requestedAt) throws SQLException {
        if (!record) {
            return acquireShared(connection, key, owner, leaseMillis, requestedAt);
        }
        return waiters.run(withColumn -> {
            if (!withColumn) {
                return acquireShared(connection, key, owner, leaseMillis, requestedAt);
            }
            try (PreparedStatement statement = prepare(connection, acquireSharedWaiting)) {
                statement.setString(1, key.value());
                statement.setLong(2, leaseMillis);
                statement.setString(3, key.original());
                statement.setString(4, owner);
                statement.setLong(5, leaseMillis);
                statement.setString(6, owner);
                statement.setString(7, key.value());
                statement.setString(8, owner);
                statement.setLong(9, markMillis);
                requestedAt[0] = System.nanoTime();
                return answer(statement);
            }
        });
    }

    @Override
    public LockSql.Outcome acquireMarking(Connection connection, StoredKey key, String owner, long leaseMillis,
                                          long markMillis, long[] requestedAt) throws SQLException {
        return waiters.run(withColumn -> {
            boolean recorded = withColumn && record;
            try (PreparedStatement statement = prepare(connection, recorded ? acquireMarking
                    : acquireMarkingUnrecorded)) {
                int index = 1;
                statement.setString(index++, key.value());
                statement.setString(index++, owner);
                statement.setLong(index++, leaseMillis);
                statement.setString(index++, key.original());
                statement.setLong(index++, markMillis);
                if (recorded) {
                    statement.setLong(index++, markMillis);
                }
                statement.setString(index, owner);
                requestedAt[0] = System.nanoTime();
                return answer(statement);
            }
        });
    }

    /** Granted with the first column's token, or busy with the second's remaining milliseconds. */
    private static LockSql.Outcome answer(PreparedStatement statement) throws SQLException {
        try (ResultSet rows = statement.executeQuery()) {
            if (!rows.next()) {
                return LockSql.Outcome.busy(-1);
            }
            long token = rows.getLong(1);
            return rows.wasNull() ? LockSql.Outcome.busy(rows.getLong(2)) : LockSql.Outcome.granted(token);
        }
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

    @Override
    public boolean renewShared(Connection connection, String key, String owner, long leaseMillis) throws SQLException {
        try (PreparedStatement statement = prepare(connection, renew)) {
            statement.setString(1, owner);
            statement.setLong(2, leaseMillis);
            statement.setString(3, key);
            statement.setString(4, owner);
            return statement.executeUpdate() == 1;
        }
    }

    @Override
    public BitSet renewAllShared(Connection connection, List<LockSql.Held> holds, long leaseMillis)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, renewAll)) {
            statement.setArray(1, connection.createArrayOf("text", SqlTemplate.keys(holds)));
            statement.setArray(2, connection.createArrayOf("text", SqlTemplate.owners(holds)));
            statement.setLong(3, leaseMillis);
            return SqlTemplate.positionsFromOne(statement);
        }
    }

    @Override
    public boolean releaseShared(Connection connection, String key, String owner) throws SQLException {
        return waiters.run(withColumn -> {
            try (PreparedStatement statement = prepare(connection, withColumn ? release : releaseNotifyingAlways)) {
                statement.setString(1, owner);
                statement.setString(2, key);
                statement.setString(3, owner);
                statement.setString(4, table.channel());
                try (ResultSet rows = statement.executeQuery()) {
                    return rows.next();
                }
            }
        });
    }
}
