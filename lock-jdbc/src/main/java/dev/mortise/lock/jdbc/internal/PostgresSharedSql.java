package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

import static dev.mortise.lock.jdbc.internal.PostgresExpressions.EXPIRY_US;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.FROM_US;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.LEASE;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.LIVE_SHARED;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.MAX_US;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.NOW;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.NOW_US;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.PRUNED;
import static dev.mortise.lock.jdbc.internal.PostgresExpressions.SHARED;

/**
 * PostgreSQL: readers are a {@code jsonb} object {@code {owner: expiry µs}} in the row. Every
 * operation is one statement. The conflict branch and the updates read only the row they write,
 * so when a statement waits for a concurrent writer of the row, PostgreSQL re-checks it against
 * the row as that writer left it. Release of the last reader notifies the table's channel, as an
 * exclusive release does, while somebody waits for the key ({@link PgWaiters}): the attempts of
 * waiting readers record the waiter in the row. The statements of waiting writers are
 * {@link PostgresWaitSql}'s.
 */
final class PostgresSharedSql extends Statements implements SharedSql {

    /** Whether row {@code l} admits a new reader: free, expired or held shared, and no unexpired writer's marker. */
    private static final String ADMITS = "((l.lock_owner IS NULL OR l.expires_at <= " + NOW + " OR l.lock_owner = " + SHARED
            + ") AND (l.waiting_writer IS NULL OR l.writer_waits_until <= " + NOW + "))";

    /**
     * The reader upsert, over: key, lease, original key, owner, lease (entry){WAITERS}. Its WHERE is
     * the one decision ({@link PostgresAnswers}): it returns a row exactly when it granted, with
     * the token it wrote. {@code {NEXT}} is the token of a new grant on row {@code l}.
     */
    private static final String ADMIT = """
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key, shared_holds)
              VALUES (?, {SHARED}, {FIRST}, {NOW}, {LEASE}, ?, jsonb_build_object(CAST(? AS text), {EXPIRY_US}))
              ON CONFLICT (lock_key) DO UPDATE SET
                fencing_token = {NEXT},
                acquired_at = CASE WHEN {LIVE} THEN l.acquired_at ELSE {NOW} END,
                shared_holds = CASE WHEN {LIVE} THEN COALESCE({PRUNED}, '{}') || EXCLUDED.shared_holds ELSE EXCLUDED.shared_holds END,
                expires_at = CASE WHEN {LIVE} THEN GREATEST(l.expires_at, EXCLUDED.expires_at) ELSE EXCLUDED.expires_at END,
                lock_owner = {SHARED}{WAITERS}
              WHERE {ADMITS}
              RETURNING l.fencing_token""";

    /** Over: ADMIT's, then key (busy read). */
    private static final String ACQUIRE_SHARED = """
            WITH attempt AS (
            {ADMIT})
            SELECT fencing_token, CAST(NULL AS BIGINT) FROM attempt
            UNION ALL
            SELECT NULL, {BLOCKED} FROM ${table} h WHERE h.lock_key = ? AND NOT EXISTS (SELECT 1 FROM attempt)""";

    /**
     * A shared attempt of a request that waits, where the table records waiters. {@code attempt} is
     * ADMIT, which also removes the waiter's entry: its WHERE is the one decision, so it returns a
     * row exactly when this statement granted, with the token it wrote. {@code waited} runs only
     * when it did not, on the row {@code attempt} found and still holds locked (rows are never
     * deleted, so it always conflicts and never inserts), and adds the waiter's entry. The answer is
     * never "the owner's entry is present": after a broken connection JdbcCalls sends the request
     * again, and the first send may have left that entry, with its own expiry, in a row this
     * statement refuses (issue 28). Over: ADMIT's, owner (removed); key, owner (added), mark.
     */
    private static final String ACQUIRE_SHARED_WAITING = """
            WITH attempt AS (
            {ADMIT}),
            waited AS (
              INSERT INTO ${table} AS l (lock_key, fencing_token)
              SELECT CAST(? AS text), 0 WHERE NOT EXISTS (SELECT 1 FROM attempt)
              ON CONFLICT (lock_key) DO UPDATE SET
                waiters = {WAITERS_LIVE} || jsonb_build_object(CAST(? AS text), {NOW_US} + CAST(? AS BIGINT) * 1000)
              RETURNING l.lock_owner, l.expires_at, l.writer_waits_until)
            SELECT fencing_token, CAST(NULL AS BIGINT) FROM attempt
            UNION ALL
            SELECT NULL, {BLOCKED} FROM waited h""";

    /** Whether the row's entry of one owner parameter is unexpired. */
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
    private final PgWaiters waiters;
    private final boolean record;

    /**
     * @param first   the token of a new row, {@code next} that of a new grant on row {@code l}
     * @param waiters whether the table records waiters, shared with this backend's other statements
     * @param record  whether this backend's waiting requests record themselves (it listens for releases)
     */
    PostgresSharedSql(TableName table, int queryTimeoutSeconds, String first, String next, PgWaiters waiters,
                      boolean record) {
        super(table, queryTimeoutSeconds, false);
        this.waiters = waiters;
        this.record = record;
        String admit = ADMIT.replace("{ADMITS}", ADMITS).replace("{LIVE}", LIVE_SHARED)
                .replace("{PRUNED}", PRUNED.formatted("l.shared_holds")).replace("{EXPIRY_US}", EXPIRY_US)
                .replace("{FIRST}", first).replace("{NEXT}", next).replace("{LEASE}", LEASE);
        this.acquireShared = sql(ACQUIRE_SHARED.replace("{ADMIT}", admit.replace("{WAITERS}", ""))
                .replace("{BLOCKED}", PostgresExpressions.blockedMillis("h")).replace("{SHARED}", SHARED)
                .replace("{NOW}", NOW));
        this.acquireSharedWaiting = sql(ACQUIRE_SHARED_WAITING.replace("{ADMIT}", admit.replace("{WAITERS}",
                        ",\n    waiters = NULLIF({WAITERS_LIVE} - CAST(? AS text), '{}')"))
                .replace("{WAITERS_LIVE}", PgWaiters.live("l")).replace("{BLOCKED}", PostgresExpressions.blockedMillis("h"))
                .replace("{SHARED}", SHARED).replace("{NOW_US}", NOW_US).replace("{NOW}", NOW));
    }

    @Override
    public LockSql.Outcome acquireShared(Connection connection, StoredKey key, String owner, long leaseMillis,
                                         long[] requestedAt) throws SQLException {
        try (PreparedStatement statement = prepare(connection, acquireShared)) {
            bindAdmit(statement, key, owner, leaseMillis);
            statement.setString(6, key.value());
            requestedAt[0] = System.nanoTime();
            return PostgresAnswers.read(statement);
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
                bindAdmit(statement, key, owner, leaseMillis);
                statement.setString(6, owner);
                statement.setString(7, key.value());
                statement.setString(8, owner);
                statement.setLong(9, markMillis);
                requestedAt[0] = System.nanoTime();
                return PostgresAnswers.read(statement);
            }
        });
    }

    /** Binds ADMIT's parameters: key, lease, original key, owner, lease (entry). */
    private static void bindAdmit(PreparedStatement statement, StoredKey key, String owner, long leaseMillis)
            throws SQLException {
        statement.setString(1, key.value());
        statement.setLong(2, leaseMillis);
        statement.setString(3, key.original());
        statement.setString(4, owner);
        statement.setLong(5, leaseMillis);
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
