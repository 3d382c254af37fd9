package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

import static dev.mortise.lock.jdbc.internal.H2Expressions.EMPTY;
import static dev.mortise.lock.jdbc.internal.H2Expressions.FROM_US;
import static dev.mortise.lock.jdbc.internal.H2Expressions.NOW;
import static dev.mortise.lock.jdbc.internal.H2Expressions.NOW_US;
import static dev.mortise.lock.jdbc.internal.H2Expressions.SHARED;

/**
 * H2 semaphores: the row's {@code permits} column, a {@code VARCHAR ARRAY} whose first element is the
 * stored count and each further one a hold's count as 10 digits followed by its owner, next to the
 * readers' entries in {@code shared_holds} ({@link H2SharedSql}). As there, arrays are walked by
 * index over {@code SYSTEM_RANGE}. Only the counts of live readers count (a crashed holder's
 * permits end with its entry's expiry); the statements rewrite the counts from the live entries, and
 * the last holder's release sets the column to NULL.
 *
 * <p>Admission is one {@code MERGE} whose {@code WHEN MATCHED AND} condition reads only the row it
 * writes (H2 locks the row, so concurrent attempts are checked one after the other) and whose SETs
 * all read the row as it was; it answers the granted row through {@code FINAL TABLE}. A refused
 * attempt takes a second primary-key read for the stored count (a mismatch) and the time until the
 * first live hold expires, as the shared acquire does. Waiters poll with backoff, so {@code record}
 * is not used. Not fair: whichever attempt comes first and fits is granted.
 */
final class H2PermitSql extends Statements implements PermitSql {

    private static final int MAX = H2Expressions.MAX_READERS;

    /**
     * Over the reader entries {@code i} of row {@code l}: the live ones. A NULL array counts as empty: H2's
     * range index fails ("Unexpected code path") on a NULL bound, which a row changed under the
     * statement by a concurrent release can give.
     */
    private static final String LIVE_ENTRIES = "FROM SYSTEM_RANGE(1, " + MAX + ") i WHERE i.X <= COALESCE(CARDINALITY(l.shared_holds), 0)"
            + " AND CAST(SUBSTRING(l.shared_holds[i.X], 1, 19) AS BIGINT) > " + NOW_US;
    private static final String ENTRY_OWNER = "SUBSTRING(l.shared_holds[i.X], 20)";
    /** Over the counts {@code k} of row {@code l} (from the second element). */
    private static final String COUNTS = "FROM SYSTEM_RANGE(2, " + MAX + ") k WHERE k.X <= COALESCE(CARDINALITY(l.permits), 0)";
    private static final String COUNT_OWNER = "SUBSTRING(l.permits[k.X], 11)";
    private static final String COUNT_N = "CAST(SUBSTRING(l.permits[k.X], 1, 10) AS INT)";
    /** Whether count {@code k}'s owner has a live entry. */
    private static final String COUNT_LIVE = "EXISTS (SELECT 1 " + LIVE_ENTRIES + " AND " + ENTRY_OWNER + " = "
            + COUNT_OWNER + ")";

    /** Whether row {@code l} is held by live permit holds only (every live entry has a count); never NULL. */
    private static final String HELD = "COALESCE(l.lock_owner = " + SHARED + " AND l.expires_at > " + NOW
            + " AND l.permits IS NOT NULL AND EXISTS (SELECT 1 " + LIVE_ENTRIES + ") AND NOT EXISTS (SELECT 1 "
            + LIVE_ENTRIES + " AND NOT EXISTS (SELECT 1 " + COUNTS + " AND " + COUNT_OWNER + " = " + ENTRY_OWNER
            + ")), FALSE)";
    private static final String OTHER_HELD = "COALESCE(l.lock_owner IS NOT NULL AND l.expires_at > " + NOW + " AND NOT "
            + HELD + ", FALSE)";
    private static final String STORED = "CAST(l.permits[1] AS INT)";
    private static final String USED = "(SELECT COALESCE(SUM(" + COUNT_N + "), 0) " + COUNTS + " AND " + COUNT_LIVE + ")";
    private static final String MARKED = "COALESCE(l.waiting_writer IS NOT NULL AND l.writer_waits_until > " + NOW
            + ", FALSE)";
    /** The live counts of row {@code l} but owner {@code %s}'s, or NULL. */
    private static final String LIVE_COUNTS_BUT = "(SELECT ARRAY_AGG(l.permits[k.X]) " + COUNTS + " AND " + COUNT_LIVE
            + " AND " + COUNT_OWNER + " <> %s)";
    /** The live reader entries of row {@code l} but owner {@code %s}'s, or NULL. */
    private static final String PRUNED_BUT = "(SELECT ARRAY_AGG(l.shared_holds[i.X]) " + LIVE_ENTRIES + " AND "
            + ENTRY_OWNER + " <> %s)";
    private static final String MAX_BUT = "(SELECT MAX(CAST(SUBSTRING(l.shared_holds[i.X], 1, 19) AS BIGINT)) "
            + LIVE_ENTRIES + " AND " + ENTRY_OWNER + " <> %s)";
    private static final String EXPIRES = "DATEADD(MILLISECOND, s.ms, " + NOW + ")";
    private static final String ENTRY = "(LPAD(CAST(" + NOW_US + " + s.ms * 1000 AS VARCHAR), 19, '0') || s.o)";
    private static final String COUNT = "(LPAD(CAST(s.n AS VARCHAR), 10, '0') || s.o)";

    private static final String ACQUIRE = """
            SELECT fencing_token FROM FINAL TABLE (
              MERGE INTO ${table} l
              USING (VALUES (CAST(:k AS VARCHAR), CAST(:o AS VARCHAR), CAST(:lease AS BIGINT), CAST(:orig AS VARCHAR),
                  CAST(:n AS INT), CAST(:lim AS INT), CAST(:follow AS BOOLEAN))) s(k, o, ms, orig, n, lim, follow)
              ON l.lock_key = s.k
              WHEN MATCHED AND {OK} THEN UPDATE SET
                fencing_token = {NEXT},
                acquired_at = CASE WHEN {HELD} THEN l.acquired_at ELSE {NOW} END,
                shared_holds = ARRAY_APPEND(CASE WHEN {HELD} THEN COALESCE({PRUNED_BUT}, {EMPTY}) ELSE {EMPTY} END, {ENTRY}),
                expires_at = CASE WHEN {HELD} THEN GREATEST(l.expires_at, {EXPIRES}) ELSE {EXPIRES} END,
                permits = CASE WHEN {HELD} THEN ARRAY_APPEND(ARRAY[l.permits[1]] || COALESCE({LIVE_COUNTS_BUT}, {EMPTY}),
                  {COUNT}) ELSE ARRAY[CAST(s.lim AS VARCHAR), {COUNT}] END,
                lock_owner = {SHARED}
              WHEN NOT MATCHED THEN INSERT (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key,
                  shared_holds, permits)
                VALUES (s.k, {SHARED}, {FIRST}, {NOW}, {EXPIRES}, s.orig, ARRAY[{ENTRY}], ARRAY[CAST(s.lim AS VARCHAR), {COUNT}]))""";

    /** After a refused merge: the stored count while permit holds are live, and the ms until a hold (or marker) ends. */
    private static final String REFUSED = "SELECT CASE WHEN " + HELD + " THEN " + STORED + " END, CASE WHEN " + HELD
            + " THEN CEIL(((SELECT MIN(CAST(SUBSTRING(l.shared_holds[i.X], 1, 19) AS BIGINT)) " + LIVE_ENTRIES + ") - "
            + NOW_US + ") / 1000.0) ELSE DATEDIFF(MILLISECOND, " + NOW + ", CASE WHEN l.lock_owner IS NOT NULL AND"
            + " l.expires_at > " + NOW + " THEN l.expires_at ELSE l.writer_waits_until END) END"
            + " FROM ${table} l WHERE l.lock_key = :k";

    /** Every SET reads the row as it was; the last holder leaving clears owner and counts. */
    private static final String RELEASE = "UPDATE ${table} l SET shared_holds = " + PRUNED_BUT.formatted(":o")
            + ", expires_at = " + FROM_US.formatted(MAX_BUT.formatted(":o")) + ", lock_owner = CASE WHEN "
            + MAX_BUT.formatted(":o") + " IS NULL THEN NULL ELSE l.lock_owner END, permits = CASE WHEN "
            + MAX_BUT.formatted(":o") + " IS NULL THEN NULL ELSE ARRAY[l.permits[1]] || COALESCE("
            + LIVE_COUNTS_BUT.formatted(":o") + ", " + EMPTY + ") END"
            + " WHERE l.lock_key = :k AND l.lock_owner = " + SHARED + " AND l.expires_at > " + NOW
            + " AND EXISTS (SELECT 1 " + LIVE_ENTRIES + " AND " + ENTRY_OWNER + " = :o)";

    private static final String SET_PERMITS = "UPDATE ${table} l SET permits = ARRAY[CAST(CAST(:lim AS INT) AS VARCHAR)]"
            + " || ARRAY_SLICE(l.permits, 2, CARDINALITY(l.permits)) WHERE l.lock_key = :k AND " + HELD;

    private final NamedSql acquire;
    private final NamedSql refused;
    private final NamedSql release;
    private final NamedSql setPermits;

    H2PermitSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, false);
        String ok = "(NOT " + MARKED + " AND NOT " + OTHER_HELD + " AND (NOT " + HELD + " OR ((s.follow OR " + STORED
                + " = s.lim) AND " + USED + " + s.n <= " + STORED + " AND COALESCE(CARDINALITY(l.shared_holds), 0) < " + MAX + ")))";
        this.acquire = NamedSql.of(ACQUIRE
                .replace("{OK}", ok)
                .replace("{HELD}", HELD)
                .replace("{PRUNED_BUT}", PRUNED_BUT.formatted("s.o"))
                .replace("{LIVE_COUNTS_BUT}", LIVE_COUNTS_BUT.formatted("s.o"))
                .replace("{EMPTY}", EMPTY)
                .replace("{ENTRY}", ENTRY)
                .replace("{COUNT}", COUNT)
                .replace("{EXPIRES}", EXPIRES)
                .replace("{FIRST}", first)
                .replace("{NEXT}", next)
                .replace("{SHARED}", SHARED)
                .replace("{NOW}", NOW)
                .replace("${table}", table.sql()));
        this.refused = NamedSql.of(REFUSED.replace("${table}", table.sql()));
        this.release = NamedSql.of(RELEASE.replace("${table}", table.sql()));
        this.setPermits = NamedSql.of(SET_PERMITS.replace("${table}", table.sql()));
    }

    @Override
    public Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, int count, int limit,
                           boolean follow, boolean record, long markMillis, long[] requestedAt) throws SQLException {
        return H2Merges.onceMoreOnDuplicate(() -> merge(connection, key, owner, leaseMillis, count, limit, follow,
                requestedAt));
    }

    private Outcome merge(Connection connection, StoredKey key, String owner, long leaseMillis, int count, int limit,
                          boolean follow, long[] requestedAt) throws SQLException {
        try (PreparedStatement statement = prepare(connection, acquire)) {
            Map<String, Object> values = new HashMap<>(Map.of("k", key.value(), "o", owner, "lease", leaseMillis,
                    "n", count, "lim", limit, "follow", follow));
            values.put("orig", key.original()); // null unless the key was shortened
            acquire.bind(statement, values);
            requestedAt[0] = System.nanoTime();
            try (ResultSet rows = statement.executeQuery()) {
                if (rows.next()) {
                    return new Outcome(rows.getLong(1), -1, 0);
                }
            }
        }
        try (PreparedStatement statement = prepare(connection, refused)) {
            refused.bind(statement, Map.of("k", key.value()));
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    return new Outcome(0, -1, 0);
                }
                int stored = rows.getInt(1);
                boolean mismatch = !rows.wasNull() && !follow && stored != limit;
                long remaining = rows.getLong(2);
                return new Outcome(0, rows.wasNull() ? -1 : Math.max(0, remaining), mismatch ? stored : 0);
            }
        }
    }

    @Override
    public boolean release(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement statement = prepare(connection, release)) {
            release.bind(statement, Map.of("k", key, "o", owner));
            return statement.executeUpdate() == 1;
        }
    }

    @Override
    public void setPermits(Connection connection, String key, int limit) throws SQLException {
        try (PreparedStatement statement = prepare(connection, setPermits)) {
            setPermits.bind(statement, Map.of("k", key, "lim", limit));
            statement.executeUpdate();
        }
    }
}
