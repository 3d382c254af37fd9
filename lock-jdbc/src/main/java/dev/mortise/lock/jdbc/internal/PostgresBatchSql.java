package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * PostgreSQL: one statement for any batch, shared parts included. The parts travel as arrays; a
 * CTE checks every key of the batch against the table, and the upserts (one for the exclusive parts,
 * one for the shared ones, each with the single acquire's conflict branch and its condition) take
 * their rows only when that check found none busy. The statement answers the token of each row it
 * took. The check reads the statement's snapshot; a row that changed since is judged again by the
 * conflict branch against its latest version, which then refuses it if it is busy, so a part can be
 * refused while others are taken (see {@link BatchSql}).
 */
final class PostgresBatchSql extends Statements implements BatchSql {

    private static final String NOW = PostgresExpressions.NOW;
    private static final String SHARED = PostgresExpressions.SHARED;
    private static final String LEASE = "(" + NOW + " + p.ms * INTERVAL '1 millisecond')";
    private static final String HELD = "(h.lock_owner IS NOT NULL AND h.expires_at > " + NOW + ")";
    private static final String MARKED = "(h.waiting_writer IS NOT NULL AND h.writer_waits_until > " + NOW + ")";

    /**
     * The parts (keys, owners, original keys, and for a mixed batch whether each is shared) and the
     * lease, then the check: {@code %s} is when row {@code h} refuses part {@code r}.
     */
    private static final String INPUT = """
            WITH r AS (SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[])%s)
                         WITH ORDINALITY AS r(k, o, orig%s, i)),
            p AS (SELECT CAST(? AS BIGINT) AS ms),
            gate AS (SELECT NOT EXISTS (SELECT 1 FROM ${table} h JOIN r ON h.lock_key = r.k WHERE %s) AS free),
            """;

    /** The exclusive parts, as {@link PostgresLockSql}'s acquire writes them; over: which rows of r. */
    private static final String EXCLUSIVE = """
            x AS (
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
              SELECT r.k, r.o, %2$s, %1$s, %4$s, r.orig FROM r, p, gate WHERE gate.free%5$s ORDER BY r.i
              ON CONFLICT (lock_key) DO UPDATE SET
            {TAKE_SET}
              WHERE {TAKE}
              RETURNING l.lock_key, l.fencing_token)""".replace("{TAKE_SET}", PostgresLockSql.TAKE_SET)
            .replace("{NEXT}", "%3$s").replace("{TAKE}", PostgresLockSql.TAKE);

    /** The shared parts, as {@link PostgresSharedSql}'s acquire writes them. */
    private static final String SHARED_PARTS = """
            s AS (
              INSERT INTO ${table} AS l (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key, shared_holds)
              SELECT r.k, %5$s, %2$s, %1$s, %4$s, r.orig, jsonb_build_object(r.o, %6$s + p.ms * 1000)
                FROM r, p, gate WHERE gate.free AND r.s ORDER BY r.i
              ON CONFLICT (lock_key) DO UPDATE SET
                fencing_token = %3$s,
                acquired_at = CASE WHEN %7$s THEN l.acquired_at ELSE %1$s END,
                shared_holds = CASE WHEN %7$s THEN COALESCE(%8$s, '{}') || EXCLUDED.shared_holds ELSE EXCLUDED.shared_holds END,
                expires_at = CASE WHEN %7$s THEN GREATEST(l.expires_at, EXCLUDED.expires_at) ELSE EXCLUDED.expires_at END,
                lock_owner = %5$s
              WHERE (l.lock_owner IS NULL OR l.expires_at <= %1$s OR l.lock_owner = %5$s)
                AND (l.waiting_writer IS NULL OR l.writer_waits_until <= %1$s)
              RETURNING l.lock_key, l.fencing_token)""";

    /** Exclusive parts only: reads and writes only the columns of the first table version. */
    private final String exclusiveOnly;
    private final String mixed;

    /** @param first the token of a new row, {@code next} that of a new holder of row {@code l} (as the single acquires) */
    PostgresBatchSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, false);
        String exclusiveBusy = HELD + " AND h.lock_owner <> r.o";
        this.exclusiveOnly = sql(INPUT.formatted("", "", exclusiveBusy)
                + EXCLUSIVE.formatted(NOW, first, next, LEASE, "")
                + "\nSELECT r.i, x.fencing_token FROM r JOIN x ON x.lock_key = r.k");
        String mixedBusy = "(NOT r.s AND " + exclusiveBusy + ") OR (r.s AND ((" + HELD + " AND h.lock_owner <> "
                + SHARED + ") OR " + MARKED + "))";
        this.mixed = sql(INPUT.formatted(", CAST(? AS boolean[])", ", s", mixedBusy)
                + EXCLUSIVE.formatted(NOW, first, next, LEASE, " AND NOT r.s") + ",\n"
                + SHARED_PARTS.formatted(NOW, first, next, LEASE, SHARED, PostgresExpressions.NOW_US,
                PostgresExpressions.LIVE_SHARED, PostgresExpressions.PRUNED.formatted("l.shared_holds"))
                + "\nSELECT r.i, t.fencing_token FROM r JOIN (SELECT lock_key, fencing_token FROM x"
                + " UNION ALL SELECT lock_key, fencing_token FROM s) t ON t.lock_key = r.k");
    }

    @Override
    public boolean accepts(List<Part> parts) {
        return true;
    }

    @Override
    public long[] acquireAll(Connection connection, List<Part> parts, long leaseMillis, long[] requestedAt)
            throws SQLException {
        int n = parts.size();
        String[] keys = new String[n];
        String[] owners = new String[n];
        String[] originals = new String[n];
        Boolean[] shared = new Boolean[n];
        boolean anyShared = false;
        for (int i = 0; i < n; i++) {
            Part part = parts.get(i);
            keys[i] = part.key().value();
            owners[i] = part.owner();
            originals[i] = part.key().original();
            shared[i] = part.shared();
            anyShared |= part.shared();
        }
        try (PreparedStatement statement = prepare(connection, anyShared ? mixed : exclusiveOnly)) {
            int index = 1;
            statement.setArray(index++, connection.createArrayOf("text", keys));
            statement.setArray(index++, connection.createArrayOf("text", owners));
            statement.setArray(index++, connection.createArrayOf("text", originals));
            if (anyShared) {
                statement.setArray(index++, connection.createArrayOf("boolean", shared));
            }
            statement.setLong(index, leaseMillis);
            long[] tokens = new long[n];
            requestedAt[0] = System.nanoTime();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    tokens[rows.getInt(1) - 1] = rows.getLong(2);
                }
            }
            return tokens;
        }
    }

    @Override
    public String cost() {
        return "one statement";
    }
}
