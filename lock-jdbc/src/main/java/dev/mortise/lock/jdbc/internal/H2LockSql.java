package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static dev.mortise.lock.jdbc.internal.H2Expressions.LEASE;
import static dev.mortise.lock.jdbc.internal.H2Expressions.NOW;

/**
 * H2: acquire is one {@code MERGE … USING} read through {@code FINAL TABLE}, which returns
 * the row only when the merge took it ({@link H2Merges}). When busy, a second cheap primary-key
 * read learns the holder's remaining lease (H2 has no way to return it from the same statement).
 */
final class H2LockSql extends SqlTemplate {

    /** The exclusive take of row {@code l} by source row {@code s}: free, expired, or its own. */
    static final String TAKE = "(l.lock_owner IS NULL OR l.expires_at <= " + NOW + " OR l.lock_owner = s.o)";

    /** The assignments of the exclusive take, over the token of a new holder of an existing row ({NEXT}). */
    static final String TAKE_SET = """
                fencing_token = CASE WHEN l.lock_owner = s.o THEN l.fencing_token ELSE {NEXT} END,
                acquired_at = CASE WHEN l.lock_owner = s.o THEN l.acquired_at ELSE {NOW} END,
                lock_owner = s.o,
                expires_at = DATEADD(MILLISECOND, s.ms, {NOW})""";

    /** Acquire, over: key, owner, lease, original key. */
    private static final String ACQUIRE = """
            SELECT fencing_token FROM FINAL TABLE (
              MERGE INTO ${table} l
              USING (VALUES (CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS VARCHAR))) s(k, o, ms, orig)
              ON l.lock_key = s.k
              WHEN MATCHED AND {TAKE} THEN UPDATE SET
            {TAKE_SET}
              WHEN NOT MATCHED THEN INSERT (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
                VALUES (s.k, s.o, {FIRST}, {NOW}, DATEADD(MILLISECOND, s.ms, {NOW}), s.orig))""";

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

    /** @param first the token of a new row, {@code next} that of a new holder of row {@code l} */
    H2LockSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, false, NOW, LEASE);
        this.acquire = sql(ACQUIRE.replace("{TAKE_SET}", TAKE_SET).replace("{TAKE}", TAKE).replace("{FIRST}", first)
                .replace("{NEXT}", next).replace("{NOW}", NOW));
    }

    @Override
    public Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, long[] requestedAt)
            throws SQLException {
        return H2Merges.onceMoreOnDuplicate(() -> merge(connection, key, owner, leaseMillis, requestedAt));
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
