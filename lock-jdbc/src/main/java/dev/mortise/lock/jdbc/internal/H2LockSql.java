package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * H2: acquire is one {@code MERGE … USING} read through {@code FINAL TABLE}, which returns
 * the row only when the merge took it. When busy, a second cheap primary-key read learns
 * the holder's remaining lease (H2 has no way to return it from the same statement). Two
 * first-time acquirers of a new key can race on the insert; the loser sees a duplicate key
 * and retries once, then finds the row.
 */
final class H2LockSql extends SqlTemplate {

    private static final String NOW = "CURRENT_TIMESTAMP";
    private static final String LEASE = "DATEADD(MILLISECOND, CAST(? AS BIGINT), " + NOW + ")";

    /**
     * The database's clock in microseconds since 1970: the statement's {@code CURRENT_TIMESTAMP}
     * (a time with zone, so the session's zone does not matter) less the epoch.
     */
    static final String CLOCK_MICROS =
            "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', " + NOW + ")";

    /** Acquire, over: now, the token of a new row, the token of a new holder of an existing row. */
    private static final String ACQUIRE = """
            SELECT fencing_token FROM FINAL TABLE (
              MERGE INTO ${table} l
              USING (VALUES (CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS VARCHAR))) s(k, o, ms, orig)
              ON l.lock_key = s.k
              WHEN MATCHED AND (l.lock_owner IS NULL OR l.expires_at <= %1$s OR l.lock_owner = s.o) THEN UPDATE SET
                fencing_token = CASE WHEN l.lock_owner = s.o THEN l.fencing_token ELSE %3$s END,
                acquired_at = CASE WHEN l.lock_owner = s.o THEN l.acquired_at ELSE %1$s END,
                lock_owner = s.o,
                expires_at = DATEADD(MILLISECOND, s.ms, %1$s)
              WHEN NOT MATCHED THEN INSERT (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
                VALUES (s.k, s.o, %2$s, %1$s, DATEADD(MILLISECOND, s.ms, %1$s), s.orig))""";

    private final String acquire;

    private final String remaining = sql("SELECT DATEDIFF(MILLISECOND, " + NOW + ", expires_at) FROM ${table}"
            + " WHERE lock_key = ? AND lock_owner IS NOT NULL AND expires_at > " + NOW);

    /**
     * One statement for any number of holds: keys and owners travel as two arrays, the
     * merge finds each row by primary key and updates only ours, and the final table names
     * the owners renewed. The owner is part of the match, so a stale hold and a new one on
     * the same key never both match the row (a merge refuses two source rows for one row).
     */
    private final String renewAll = sql("""
            SELECT lock_owner FROM FINAL TABLE (
              MERGE INTO ${table} l
              USING UNNEST(CAST(? AS VARCHAR ARRAY), CAST(? AS VARCHAR ARRAY)) h(k, o)
              ON l.lock_key = h.k AND l.lock_owner = h.o
              WHEN MATCHED AND l.expires_at > %1$s THEN UPDATE SET expires_at = %2$s)"""
            .formatted(NOW, LEASE));

    /** @param serverClock whether a new holder's token is {@code max(token + 1, clock in µs)}, see {@link #CLOCK_MICROS} */
    H2LockSql(TableName table, int queryTimeoutSeconds, boolean serverClock) {
        super(table, queryTimeoutSeconds, NOW, LEASE);
        String first = serverClock ? CLOCK_MICROS : "1";
        String next = serverClock ? "GREATEST(l.fencing_token + 1, " + CLOCK_MICROS + ")" : "l.fencing_token + 1";
        this.acquire = sql(ACQUIRE.formatted(NOW, first, next));
    }

    @Override
    public Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, long[] requestedAt)
            throws SQLException {
        try {
            return merge(connection, key, owner, leaseMillis, requestedAt);
        } catch (SQLException e) {
            if (!"23505".equals(e.getSQLState())) {
                throw e;
            }
            // Another session inserted the key between our MERGE's lookup and its insert: the row exists now.
            return merge(connection, key, owner, leaseMillis, requestedAt);
        }
    }

    private Outcome merge(Connection connection, StoredKey key, String owner, long leaseMillis, long[] requestedAt)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, acquire)) {
            bindAcquire(statement, key, owner, leaseMillis);
            requestedAt[0] = System.nanoTime();
            try (ResultSet rows = statement.executeQuery()) {
                if (rows.next()) {
                    return Outcome.granted(rows.getLong(1));
                }
            }
        }
        try (PreparedStatement statement = prepare(connection, remaining)) {
            statement.setString(1, key.value());
            try (ResultSet rows = statement.executeQuery()) {
                return Outcome.busy(rows.next() ? Math.max(0, rows.getLong(1)) : 0);
            }
        }
    }

    @Override
    BitSet renewRun(Connection connection, List<Held> run, long leaseMillis) throws SQLException {
        String[] owners = owners(run);
        Set<String> renewed = new HashSet<>();
        try (PreparedStatement statement = prepare(connection, renewAll)) {
            statement.setArray(1, connection.createArrayOf("VARCHAR", keys(run)));
            statement.setArray(2, connection.createArrayOf("VARCHAR", owners));
            statement.setLong(3, leaseMillis);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    renewed.add(rows.getString(1));
                }
            }
        }
        BitSet gone = new BitSet();
        for (int i = 0; i < owners.length; i++) {
            if (!renewed.contains(owners[i])) {
                gone.set(i);
            }
        }
        return gone;
    }
}
