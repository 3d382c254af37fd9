package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * PostgreSQL semaphores: the row's {@code permits} column, a {@code jsonb}
 * {@code {"limit": stored count, "holds": {owner: count}}}, next to the readers' expiries in
 * {@code shared_holds}. Only the entries of live readers count (a crashed holder's permits end
 * with its entry's expiry); the statements rewrite {@code holds} from the live entries, and the
 * last holder's release sets the column to NULL. Admission is one statement: an {@code INSERT … ON
 * CONFLICT DO UPDATE … WHERE} that grants, whose conditions read only the row it writes, so concurrent
 * attempts are ordered by the row lock and each is checked against the row as the previous one left
 * it, and, only when it did not grant, a second upsert of the same locked row that records the waiter
 * (see {@code ACQUIRE}: a grant is what the first one returned, never an entry found). Waiters are recorded
 * in {@code waiters} ({@link PgWaiters}) and every permit release (not only the last) notifies
 * while somebody waits. Not fair: whichever attempt of those woken comes first and fits is granted.
 */
final class PostgresPermitSql extends Statements implements PermitSql {

    private static final String NOW = PostgresExpressions.NOW;
    private static final String NOW_US = PostgresExpressions.NOW_US;
    private static final String SHARED = PostgresExpressions.SHARED;

    /** Whether row {@code R} has an unexpired reader entry. */
    private static final String ANY_ENTRY = "EXISTS (SELECT 1 FROM jsonb_each(R.shared_holds) e"
            + " WHERE CAST(e.value AS BIGINT) > " + NOW_US + ")";
    /**
     * Whether row {@code R} is held by live permit holds only (every live reader entry has a count).
     * Never NULL: a row whose hold was cleared (owner and expiry NULL) must read as free, not unknown.
     */
    private static final String PERMIT_HELD = "COALESCE(R.lock_owner = " + SHARED + " AND R.expires_at > " + NOW
            + " AND R.permits IS NOT NULL AND " + ANY_ENTRY + " AND NOT EXISTS (SELECT 1 FROM jsonb_each(R.shared_holds) e"
            + " WHERE CAST(e.value AS BIGINT) > " + NOW_US + " AND R.permits -> 'holds' -> e.key IS NULL), FALSE)";
    /** Whether row {@code R} is held otherwise: exclusively, or by a reader without permits. */
    private static final String OTHER_HELD = "COALESCE(R.lock_owner IS NOT NULL AND R.expires_at > " + NOW + " AND NOT "
            + PERMIT_HELD + ", FALSE)";
    private static final String STORED = "CAST(R.permits ->> 'limit' AS INT)";
    private static final String USED = "(SELECT COALESCE(SUM(CAST(R.permits -> 'holds' ->> e.key AS INT)), 0)"
            + " FROM jsonb_each(R.shared_holds) e WHERE CAST(e.value AS BIGINT) > " + NOW_US + ")";
    private static final String MARKED = "COALESCE(R.waiting_writer IS NOT NULL AND R.writer_waits_until > " + NOW
            + ", FALSE)";
    /** The counts of row {@code R}'s live holds, as {@code {owner: count}}, or NULL if none. */
    private static final String LIVE_COUNTS = "(SELECT jsonb_object_agg(e.key, R.permits -> 'holds' -> e.key)"
            + " FROM jsonb_each(R.shared_holds) e WHERE CAST(e.value AS BIGINT) > " + NOW_US + ")";

    private static String of(String expression, String row) {
        return expression.replace("R.", row + ".");
    }

    /**
     * Over (in the CTE p): key, owner, lease, count, limit, follow, record, mark, original key. The
     * upsert {@code attempt} grants: its WHERE ({OK}) is the one decision, so it returns a row exactly
     * when this statement granted, with the token it wrote, and every SET reads the row as it was.
     * {@code waited} runs only when it did not, on the row {@code attempt} found and still holds locked
     * (rows are never deleted, so it always conflicts and never inserts): it records the waiter and
     * answers the row for the refusal's details. The answer is never "the owner's entry is present":
     * after a broken connection JdbcCalls sends the request again, and the first send may have left
     * that entry (and its count, counted in USED) in a row this statement refuses (issue 28).
     */
    private static final String ACQUIRE = """
            WITH p AS (SELECT CAST(? AS text) AS k, CAST(? AS text) AS o, CAST(? AS BIGINT) AS lease,
                CAST(? AS INT) AS n, CAST(? AS INT) AS lim, CAST(? AS BOOLEAN) AS follow, CAST(? AS BOOLEAN) AS rec,
                CAST(? AS BIGINT) AS mark, CAST(? AS text) AS orig),
            attempt AS (
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key,
                  shared_holds, permits)
              SELECT p.k, {SHARED}, {FIRST}, {NOW}, {NOW} + p.lease * INTERVAL '1 millisecond', p.orig,
                  jsonb_build_object(p.o, {NOW_US} + p.lease * 1000),
                  jsonb_build_object('limit', p.lim, 'holds', jsonb_build_object(p.o, p.n)) FROM p
              ON CONFLICT (lock_key) DO UPDATE SET
                fencing_token = {NEXT},
                acquired_at = CASE WHEN {HELD} THEN l.acquired_at ELSE {NOW} END,
                shared_holds = CASE WHEN {HELD} THEN COALESCE({PRUNED}, '{}') || EXCLUDED.shared_holds
                  ELSE EXCLUDED.shared_holds END,
                expires_at = CASE WHEN {HELD} THEN GREATEST(l.expires_at, EXCLUDED.expires_at) ELSE EXCLUDED.expires_at END,
                permits = CASE WHEN {HELD} THEN jsonb_build_object('limit', {STORED}, 'holds',
                    COALESCE({LIVE_COUNTS}, '{}') || (EXCLUDED.permits -> 'holds'))
                  ELSE EXCLUDED.permits END,
                lock_owner = {SHARED},
                waiters = NULLIF({WAITERS} - (SELECT p.o FROM p), '{}')
              WHERE {OK}
              RETURNING l.fencing_token),
            waited AS (
              INSERT INTO ${table} AS l (lock_key, fencing_token)
              SELECT p.k, 0 FROM p WHERE NOT EXISTS (SELECT 1 FROM attempt)
              ON CONFLICT (lock_key) DO UPDATE SET
                waiters = CASE WHEN (SELECT p.rec FROM p) AND NOT {MISMATCH}
                    THEN {WAITERS} || jsonb_build_object((SELECT p.o FROM p), {NOW_US} + (SELECT p.mark FROM p) * 1000)
                  ELSE l.waiters END
              RETURNING l.*)
            SELECT a.fencing_token, CAST(NULL AS BIGINT), CAST(NULL AS INT) FROM attempt a
            UNION ALL
            SELECT NULL,
                   CASE WHEN {R_HELD} THEN CAST(GREATEST(0, CEIL(((SELECT MIN(CAST(e.value AS BIGINT))
                       FROM jsonb_each(r.shared_holds) e WHERE CAST(e.value AS BIGINT) > {NOW_US}) - {NOW_US}) / 1000.0)) AS BIGINT)
                     ELSE {R_BLOCKED} END,
                   CASE WHEN {R_HELD} THEN {R_STORED} END
            FROM waited r""";

    /** Over: owner, owner, key, owner, channel. Notifies whenever somebody waits: a freed permit may fit one. */
    private static final String RELEASE = ("WITH released AS (UPDATE ${table} t SET (shared_holds, expires_at, lock_owner,"
            + " permits) = (SELECT x.h, (TIMESTAMP WITH TIME ZONE 'epoch' + x.m * INTERVAL '1 microsecond'),"
            + " CASE WHEN x.h IS NULL THEN NULL ELSE " + SHARED + " END,"
            + " CASE WHEN x.h IS NULL THEN NULL ELSE t.permits #- ARRAY['holds', CAST(? AS text)] END"
            + " FROM (SELECT y.h, (SELECT MAX(CAST(e.value AS BIGINT)) FROM jsonb_each(y.h) e) AS m FROM (SELECT NULLIF("
            + "COALESCE(" + PostgresExpressions.PRUNED.formatted("t.shared_holds") + ", '{}') - CAST(? AS text), '{}') AS h) y) x)"
            + " WHERE lock_key = ? AND lock_owner = " + SHARED + " AND expires_at > " + NOW
            + " AND CAST(shared_holds ->> CAST(? AS text) AS BIGINT) > " + NOW_US
            + " RETURNING lock_key, waiters)"
            + " SELECT CAST(CASE WHEN " + PgWaiters.ANYONE.formatted("released") + " THEN pg_notify(?, lock_key) END"
            + " AS text) FROM released");

    /** Over: limit, key, channel. */
    private static final String SET_PERMITS = ("WITH s AS (UPDATE ${table} t SET permits = jsonb_set(t.permits, '{limit}',"
            + " to_jsonb(CAST(? AS INT))) WHERE t.lock_key = ? AND " + of(PERMIT_HELD, "t") + " RETURNING t.lock_key, t.waiters)"
            + " SELECT CAST(CASE WHEN " + PgWaiters.ANYONE.formatted("s") + " THEN pg_notify(?, lock_key) END AS text) FROM s");

    private final String acquire;
    private final String release;
    private final String setPermits;

    PostgresPermitSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, false);
        this.release = sql(RELEASE);
        this.setPermits = sql(SET_PERMITS);
        String n = "(SELECT p.n FROM p)";
        String limit = "(SELECT p.lim FROM p)"; // not EXCLUDED's: waited inserts no permits
        String follow = "(SELECT p.follow FROM p)";
        String held = of(PERMIT_HELD, "l");
        String stored = of(STORED, "l");
        String mismatch = "(" + held + " AND NOT " + follow + " AND " + stored + " <> " + limit + ")";
        String ok = "(NOT " + of(MARKED, "l") + " AND NOT " + of(OTHER_HELD, "l") + " AND (NOT " + held + " OR ((" + follow
                + " OR " + stored + " = " + limit + ") AND " + of(USED, "l") + " + " + n + " <= " + stored + ")))";
        this.acquire = sql(ACQUIRE
                .replace("{OK}", ok)
                .replace("{HELD}", held)
                .replace("{MISMATCH}", mismatch)
                .replace("{STORED}", stored)
                .replace("{LIVE_COUNTS}", of(LIVE_COUNTS, "l"))
                .replace("{PRUNED}", PostgresExpressions.PRUNED.formatted("l.shared_holds"))
                .replace("{WAITERS}", PgWaiters.live("l"))
                .replace("{R_HELD}", of(PERMIT_HELD, "r"))
                .replace("{R_STORED}", of(STORED, "r"))
                .replace("{R_BLOCKED}", PostgresExpressions.blockedMillis("r"))
                .replace("{FIRST}", first)
                .replace("{NEXT}", next)
                .replace("{SHARED}", SHARED)
                .replace("{NOW_US}", NOW_US)
                .replace("{NOW}", NOW));
    }

    @Override
    public Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, int count, int limit,
                           boolean follow, boolean record, long markMillis, long[] requestedAt) throws SQLException {
        try (PreparedStatement statement = prepare(connection, acquire)) {
            statement.setString(1, key.value());
            statement.setString(2, owner);
            statement.setLong(3, leaseMillis);
            statement.setInt(4, count);
            statement.setInt(5, limit);
            statement.setBoolean(6, follow);
            statement.setBoolean(7, record);
            statement.setLong(8, markMillis);
            statement.setString(9, key.original());
            requestedAt[0] = System.nanoTime();
            return PostgresAnswers.readPermits(statement, follow, limit);
        }
    }

    @Override
    public boolean release(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement statement = prepare(connection, release)) {
            statement.setString(1, owner);
            statement.setString(2, owner);
            statement.setString(3, key);
            statement.setString(4, owner);
            statement.setString(5, table.channel());
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next();
            }
        }
    }

    @Override
    public void setPermits(Connection connection, String key, int limit) throws SQLException {
        try (PreparedStatement statement = prepare(connection, setPermits)) {
            statement.setInt(1, limit);
            statement.setString(2, key);
            statement.setString(3, table.channel());
            statement.executeQuery().close();
        }
    }
}
