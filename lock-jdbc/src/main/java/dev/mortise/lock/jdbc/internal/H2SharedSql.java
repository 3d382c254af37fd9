package dev.mortise.lock.jdbc.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static dev.mortise.lock.jdbc.internal.H2Expressions.EMPTY;
import static dev.mortise.lock.jdbc.internal.H2Expressions.FROM_US;
import static dev.mortise.lock.jdbc.internal.H2Expressions.MAX_READERS;
import static dev.mortise.lock.jdbc.internal.H2Expressions.NOW;
import static dev.mortise.lock.jdbc.internal.H2Expressions.NOW_US;
import static dev.mortise.lock.jdbc.internal.H2Expressions.SHARED;

/**
 * H2: readers are a {@code VARCHAR ARRAY} in the row, each entry its expiry in µs as 19 digits
 * followed by the owner. H2 cannot unnest a column of the row being merged, so the statements
 * walk the array by index over {@code SYSTEM_RANGE(1, MAX_READERS)} ({@link H2Expressions#MAX_READERS}).
 * Acquire is one statement when granted and, as the exclusive acquire, takes a second primary-key
 * read for the busy answer's remaining time ({@link H2Merges}). The marker of a waiting writer is
 * {@link H2WaitSql}'s.
 */
final class H2SharedSql extends Statements implements SharedSql {

    /** Rows {@code i} over the entries of array {@code %1$s}; then {@code AND …} may follow. */
    private static final String EACH = "FROM SYSTEM_RANGE(1, " + MAX_READERS + ") i WHERE i.X <= CARDINALITY(%1$s)";
    private static final String ENTRY = "%1$s[i.X]";
    private static final String EXP = "CAST(SUBSTRING(%1$s[i.X], 1, 19) AS BIGINT)";
    private static final String OWN = "SUBSTRING(%1$s[i.X], 20)";

    /** The unexpired entries of {@code col} but owner {@code owner}'s, or NULL. */
    private static String prunedBut(String col, String owner) {
        return "(SELECT ARRAY_AGG(" + ENTRY.formatted(col) + ") " + EACH.formatted(col) + " AND "
                + EXP.formatted(col) + " > " + NOW_US + " AND " + OWN.formatted(col) + " <> " + owner + ")";
    }

    /** The latest unexpired expiry in {@code col} but owner {@code owner}'s, or NULL. */
    private static String maxBut(String col, String owner) {
        return "(SELECT MAX(" + EXP.formatted(col) + ") " + EACH.formatted(col) + " AND "
                + EXP.formatted(col) + " > " + NOW_US + " AND " + OWN.formatted(col) + " <> " + owner + ")";
    }

    private static String entry(String micros, String owner) {
        return "(LPAD(CAST(" + micros + " AS VARCHAR), 19, '0') || " + owner + ")";
    }

    private static final String OWN_ENTRY_LIVE = "lock_owner = " + SHARED + " AND expires_at > " + NOW
            + " AND EXISTS (SELECT 1 " + EACH.formatted("shared_holds") + " AND " + OWN.formatted("shared_holds")
            + " = CAST(? AS VARCHAR) AND " + EXP.formatted("shared_holds") + " > " + NOW_US + ")";

    private static final String LIVE = "(l.lock_owner = " + SHARED + " AND l.expires_at > " + NOW + ")";
    private static final String EXPIRES = "DATEADD(MILLISECOND, s.ms, " + NOW + ")";

    /** Over: key, owner, lease, original key. */
    private static final String ACQUIRE_SHARED = """
            SELECT fencing_token FROM FINAL TABLE (
              MERGE INTO ${table} l
              USING (VALUES (CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS VARCHAR))) s(k, o, ms, orig)
              ON l.lock_key = s.k
              WHEN MATCHED AND (l.lock_owner IS NULL OR l.expires_at <= %1$s OR l.lock_owner = %2$s)
                AND (l.waiting_writer IS NULL OR l.writer_waits_until <= %1$s)
                AND (l.lock_owner IS DISTINCT FROM %2$s OR l.expires_at <= %1$s OR CARDINALITY(l.shared_holds) < %9$d)
              THEN UPDATE SET
                fencing_token = %4$s,
                acquired_at = CASE WHEN %5$s THEN l.acquired_at ELSE %1$s END,
                shared_holds = ARRAY_APPEND(CASE WHEN %5$s THEN COALESCE(%6$s, %7$s) ELSE %7$s END, %8$s),
                expires_at = CASE WHEN %5$s THEN GREATEST(l.expires_at, %10$s) ELSE %10$s END,
                lock_owner = %2$s
              WHEN NOT MATCHED THEN INSERT (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key, shared_holds)
                VALUES (s.k, %2$s, %3$s, %1$s, %10$s, s.orig, ARRAY[%8$s]))""";

    private final String busyRemaining = sql("SELECT DATEDIFF(MILLISECOND, " + NOW + ", CASE WHEN lock_owner IS NOT NULL"
            + " AND expires_at > " + NOW + " THEN expires_at ELSE writer_waits_until END) FROM ${table} WHERE lock_key = ?");

    /** Over: owner, lease, owner, owner, lease, key, owner. */
    private final String renew = sql("UPDATE ${table} SET shared_holds = ARRAY_APPEND(COALESCE("
            + prunedBut("shared_holds", "CAST(? AS VARCHAR)") + ", " + EMPTY + "), "
            + entry(NOW_US + " + CAST(? AS BIGINT) * 1000", "CAST(? AS VARCHAR)") + "), expires_at = "
            + FROM_US.formatted("GREATEST(COALESCE(" + maxBut("shared_holds", "CAST(? AS VARCHAR)") + ", 0), "
            + NOW_US + " + CAST(? AS BIGINT) * 1000)") + " WHERE lock_key = ? AND " + OWN_ENTRY_LIVE);

    /** Over: owner, owner, owner, key, owner. Every SET reads the row as it was. */
    private final String release = sql("UPDATE ${table} SET shared_holds = "
            + prunedBut("shared_holds", "CAST(? AS VARCHAR)") + ", expires_at = "
            + FROM_US.formatted(maxBut("shared_holds", "CAST(? AS VARCHAR)")) + ", lock_owner = CASE WHEN "
            + maxBut("shared_holds", "CAST(? AS VARCHAR)") + " IS NULL THEN NULL ELSE lock_owner END"
            + " WHERE lock_key = ? AND " + OWN_ENTRY_LIVE);

    /**
     * Over: lease (answer), keys, owners, lease, lease. The holds are grouped by key (a merge takes
     * one source row per row); the answer is each renewed row's entries and the new expiry, and a
     * hold was renewed exactly when its entry holds that expiry.
     */
    private final String renewAll;

    private final String acquireShared;

    /** @param first the token of a new row, {@code next} that of a new grant on row {@code l} */
    H2SharedSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, false);
        this.acquireShared = sql(ACQUIRE_SHARED.formatted(NOW, SHARED, first, next, LIVE,
                prunedBut("l.shared_holds", "s.o"), EMPTY, entry(NOW_US + " + s.ms * 1000", "s.o"), MAX_READERS,
                EXPIRES));
        String renewed = "CASE WHEN ARRAY_CONTAINS(g.os, " + OWN.formatted("l.shared_holds") + ") THEN ("
                + NOW_US + " + CAST(? AS BIGINT) * 1000) ELSE " + EXP.formatted("l.shared_holds") + " END";
        String live = EACH.formatted("l.shared_holds") + " AND " + EXP.formatted("l.shared_holds") + " > " + NOW_US;
        this.renewAll = sql("SELECT lock_key, shared_holds, " + NOW_US + " + CAST(? AS BIGINT) * 1000 FROM FINAL TABLE ("
                + " MERGE INTO ${table} l USING (SELECT k, ARRAY_AGG(o) os FROM UNNEST(CAST(? AS VARCHAR ARRAY),"
                + " CAST(? AS VARCHAR ARRAY)) h(k, o) GROUP BY k) g ON l.lock_key = g.k"
                + " WHEN MATCHED AND l.lock_owner = " + SHARED + " AND l.expires_at > " + NOW + " THEN UPDATE SET"
                + " shared_holds = (SELECT ARRAY_AGG(LPAD(CAST(" + renewed + " AS VARCHAR), 19, '0') || "
                + OWN.formatted("l.shared_holds") + ") " + live + "),"
                + " expires_at = " + FROM_US.formatted("(SELECT MAX(" + renewed + ") " + live + ")") + ")");
    }

    @Override
    public LockSql.Outcome acquireShared(Connection connection, StoredKey key, String owner, long leaseMillis,
                                         long[] requestedAt) throws SQLException {
        return H2Merges.onceMoreOnDuplicate(() -> mergeShared(connection, key, owner, leaseMillis, requestedAt));
    }

    private LockSql.Outcome mergeShared(Connection connection, StoredKey key, String owner, long leaseMillis,
                                        long[] requestedAt) throws SQLException {
        try (PreparedStatement statement = prepare(connection, acquireShared)) {
            bind(statement, key, owner, leaseMillis);
            requestedAt[0] = System.nanoTime();
            try (ResultSet rows = statement.executeQuery()) {
                if (rows.next()) {
                    return LockSql.Outcome.granted(rows.getLong(1));
                }
            }
        }
        try (PreparedStatement statement = prepare(connection, busyRemaining)) {
            statement.setString(1, key.value());
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    return LockSql.Outcome.busy(-1);
                }
                long remaining = rows.getLong(1);
                return LockSql.Outcome.busy(rows.wasNull() ? -1 : Math.max(0, remaining));
            }
        }
    }

    /** Binds what the acquire statements take first: key, owner, lease, original key. */
    static void bind(PreparedStatement statement, StoredKey key, String owner, long leaseMillis)
            throws SQLException {
        statement.setString(1, key.value());
        statement.setString(2, owner);
        statement.setLong(3, leaseMillis);
        statement.setString(4, key.original());
    }

    @Override
    public boolean renewShared(Connection connection, String key, String owner, long leaseMillis) throws SQLException {
        try (PreparedStatement statement = prepare(connection, renew)) {
            statement.setString(1, owner);
            statement.setLong(2, leaseMillis);
            statement.setString(3, owner);
            statement.setString(4, owner);
            statement.setLong(5, leaseMillis);
            statement.setString(6, key);
            statement.setString(7, owner);
            return statement.executeUpdate() == 1;
        }
    }

    @Override
    public boolean releaseShared(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement statement = prepare(connection, release)) {
            statement.setString(1, owner);
            statement.setString(2, owner);
            statement.setString(3, owner);
            statement.setString(4, key);
            statement.setString(5, owner);
            return statement.executeUpdate() == 1;
        }
    }

    @Override
    public BitSet renewAllShared(Connection connection, List<LockSql.Held> holds, long leaseMillis)
            throws SQLException {
        Set<String> renewed = new HashSet<>();
        try (PreparedStatement statement = prepare(connection, renewAll)) {
            statement.setLong(1, leaseMillis);
            statement.setArray(2, connection.createArrayOf("VARCHAR", SqlTemplate.keys(holds)));
            statement.setArray(3, connection.createArrayOf("VARCHAR", SqlTemplate.owners(holds)));
            statement.setLong(4, leaseMillis);
            statement.setLong(5, leaseMillis);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    String key = rows.getString(1);
                    Array entries = rows.getArray(2);
                    String expiry = String.format("%019d", rows.getLong(3));
                    if (entries != null) {
                        for (Object entry : (Object[]) entries.getArray()) {
                            String text = (String) entry;
                            if (text.startsWith(expiry)) {
                                renewed.add(key + '\0' + text.substring(19));
                            }
                        }
                    }
                }
            }
        }
        BitSet gone = new BitSet();
        for (int i = 0; i < holds.size(); i++) {
            if (!renewed.contains(holds.get(i).key() + '\0' + holds.get(i).owner())) {
                gone.set(i);
            }
        }
        return gone;
    }
}
