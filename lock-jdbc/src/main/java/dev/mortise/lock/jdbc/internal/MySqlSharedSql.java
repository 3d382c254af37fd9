package dev.mortise.lock.jdbc.internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * MySQL and MariaDB: readers are a JSON array {@code [[owner, expiry µs], …]} in the row, read
 * with {@code JSON_TABLE} over the row's own column. Acquire answers through
 * {@code LAST_INSERT_ID(expr)} in one round trip, as the exclusive acquire does
 * ({@link MySqlLockSql}); its assignments run left to right, each seeing the columns assigned
 * before it, so their order is part of the algorithm. Owners are compared with
 * {@code utf8mb4_bin}, never a folding collation.
 */
final class MySqlSharedSql extends SharedTemplate {

    private static final long BUSY = MySqlLockSql.BUSY;
    private static final String NOW = "UTC_TIMESTAMP(6)";
    private static final String NOW_US = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', " + NOW + ")";
    private static final String LEASE = NOW + " + INTERVAL (? * 1000) MICROSECOND";
    private static final String EXPIRY_US = "(" + NOW_US + " + ? * 1000)";
    private static final String FROM_US = "TIMESTAMPADD(MICROSECOND, %s, '1970-01-01 00:00:00')";
    private static final String BIN = " COLLATE utf8mb4_bin";
    /** The entries of a JSON column or parameter {@code %s} as rows {@code j(o, e)}. */
    private static final String ENTRIES = "JSON_TABLE(%s, '$[*]' COLUMNS (o VARCHAR(255) CHARACTER SET utf8mb4"
            + " PATH '$[0]', e BIGINT PATH '$[1]')) j";
    /** The unexpired entries but {@code owner}'s (one parameter), or NULL. */
    private static final String PRUNED_BUT = "(SELECT JSON_ARRAYAGG(JSON_ARRAY(j.o, j.e)) FROM "
            + ENTRIES.formatted("shared_holds") + " WHERE j.e > " + NOW_US + " AND j.o" + BIN + " <> ?" + BIN + ")";
    private static final String MAX_US = "(SELECT MAX(j.e) FROM " + ENTRIES.formatted("shared_holds") + ")";
    private static final String OWN_ENTRY_LIVE = "lock_owner = " + SHARED + " AND expires_at > " + NOW
            + " AND EXISTS (SELECT 1 FROM " + ENTRIES.formatted("shared_holds") + " WHERE j.o" + BIN + " = ?" + BIN
            + " AND j.e > " + NOW_US + ")";

    /**
     * Over: key, lease, original key, owner, lease (entry); then in the update: owner (pruning).
     * OK and LIVE read lock_owner and expires_at before they are assigned. expires_at comes last and
     * cannot ask OK again (lock_owner has changed): the row shows the shared owner and no unexpired
     * marker after the assignment of lock_owner exactly when the reader was granted; then an old
     * expiry still ahead can only be live readers', which the new one joins.
     */
    private static final String ACQUIRE_SHARED = """
            INSERT INTO ${table} (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key, shared_holds)
            VALUES (?, %1$s, LAST_INSERT_ID(%2$s), %3$s, %4$s, ?, JSON_ARRAY(JSON_ARRAY(?, %5$s)))
            ON DUPLICATE KEY UPDATE
              shared_holds = IF(%7$s, IF(%8$s, JSON_MERGE_PRESERVE(COALESCE(%9$s, JSON_ARRAY()), VALUES(shared_holds)),
                VALUES(shared_holds)), shared_holds),
              acquired_at = IF(%7$s, IF(%8$s, acquired_at, %3$s), acquired_at),
              fencing_token = IF(%7$s, LAST_INSERT_ID(%6$s),
                IF(LAST_INSERT_ID(%10$d + GREATEST(0, TIMESTAMPDIFF(MICROSECOND, %3$s, IF(lock_owner IS NOT NULL
                  AND expires_at > %3$s, expires_at, writer_waits_until)))) > 0, fencing_token, fencing_token)),
              lock_owner = IF(%7$s, %1$s, lock_owner),
              expires_at = IF(lock_owner = %1$s AND (waiting_writer IS NULL OR writer_waits_until <= %3$s),
                IF(expires_at > %3$s, GREATEST(expires_at, VALUES(expires_at)), VALUES(expires_at)), expires_at)""";

    /**
     * Over: key, owner, lease, original key; in the update: mark. TAKE (the exclusive acquire's
     * condition) reads lock_owner and expires_at, which only the last assignments change; the
     * marker columns are decided on the marker as it was, then the exclusive acquire's own
     * assignments follow in their order.
     */
    private static final String ACQUIRE_MARKING = """
            INSERT INTO ${table} (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
            VALUES (?, ?, LAST_INSERT_ID(%2$s), %1$s, %4$s, ?)
            ON DUPLICATE KEY UPDATE
              writer_waits_until = IF(%5$s, IF(waiting_writer <=> VALUES(lock_owner), NULL, writer_waits_until),
                %1$s + INTERVAL (? * 1000) MICROSECOND),
              waiting_writer = IF(%5$s, IF(waiting_writer <=> VALUES(lock_owner), NULL, waiting_writer), VALUES(lock_owner)),
              shared_holds = IF(%5$s, NULL, shared_holds),
              fencing_token = IF(%5$s,
                LAST_INSERT_ID(IF(lock_owner <=> VALUES(lock_owner), fencing_token, %3$s)),
                IF(LAST_INSERT_ID(%6$d + GREATEST(0, TIMESTAMPDIFF(MICROSECOND, %1$s, expires_at))) > 0,
                   fencing_token, fencing_token)),
              acquired_at = IF(%5$s, IF(lock_owner <=> VALUES(lock_owner), acquired_at, %1$s), acquired_at),
              lock_owner = IF(%5$s, VALUES(lock_owner), lock_owner),
              expires_at = IF(lock_owner <=> VALUES(lock_owner), VALUES(expires_at), expires_at)""";

    /** Over: owner (pruning), owner, lease, key, owner. expires_at reads the entries just assigned. */
    private final String renew = sql("UPDATE ${table} SET shared_holds = JSON_ARRAY_APPEND(COALESCE(" + PRUNED_BUT
            + ", JSON_ARRAY()), '$', JSON_ARRAY(?, " + EXPIRY_US + ")), expires_at = " + FROM_US.formatted(MAX_US)
            + " WHERE lock_key = ? AND " + OWN_ENTRY_LIVE);

    /** Over: owner (pruning), key, owner. The row is free when no other entry is unexpired. */
    private final String release = sql("UPDATE ${table} SET shared_holds = " + PRUNED_BUT + ", expires_at = "
            + FROM_US.formatted(MAX_US) + ", lock_owner = IF(shared_holds IS NULL, NULL, lock_owner)"
            + " WHERE lock_key = ? AND " + OWN_ENTRY_LIVE);

    /**
     * Over: the holds grouped by key, {@code [["<key hex>", "<JSON array of owners>"], …]}, lease.
     * The update is multi-table, whose assignments MySQL may run in any order: expires_at is
     * computed so that it comes out the same from the entries before or after their update.
     */
    private final String renewAll = sql(("UPDATE ${table} t JOIN JSON_TABLE(?, '$[*]' COLUMNS ("
            + "k VARCHAR(6144) CHARACTER SET ascii PATH '$[0]', os TEXT CHARACTER SET utf8mb4 PATH '$[1]')) g"
            + " ON t.lock_key = UNHEX(g.k) AND t.lock_owner = " + SHARED + " AND t.expires_at > " + NOW
            + " SET t.shared_holds = (SELECT JSON_ARRAYAGG(JSON_ARRAY(j.o, IF(%1$s, %2$s, j.e))) FROM %3$s WHERE j.e > %4$s),"
            + " t.expires_at = " + FROM_US.formatted("(SELECT MAX(IF(%1$s, %2$s, j.e)) FROM %3$s WHERE j.e > %4$s)"))
            .formatted("JSON_CONTAINS(g.os, JSON_QUOTE(j.o))", "(" + NOW_US + " + ? * 1000)",
                    ENTRIES.formatted("t.shared_holds"), NOW_US));

    /** Over: the holds, {@code [["<key hex>", "<owner>"], …]}: the positions whose entry is not unexpired. */
    private final String gone = sql("SELECT h.i FROM JSON_TABLE(?, '$[*]' COLUMNS (i FOR ORDINALITY,"
            + " k VARCHAR(6144) CHARACTER SET ascii PATH '$[0]', o VARCHAR(1024) CHARACTER SET utf8mb4 PATH '$[1]')) h"
            + " WHERE NOT EXISTS (SELECT 1 FROM ${table} t, " + ENTRIES.formatted("t.shared_holds")
            + " WHERE t.lock_key = UNHEX(h.k) AND t.lock_owner = " + SHARED + " AND t.expires_at > " + NOW
            + " AND j.o" + BIN + " = h.o" + BIN + " AND j.e > " + NOW_US + ")");

    private final String acquireShared;
    private final String acquireMarking;

    MySqlSharedSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds);
        String ok = "((lock_owner IS NULL OR expires_at <= " + NOW + " OR lock_owner = " + SHARED + ")"
                + " AND (waiting_writer IS NULL OR writer_waits_until <= " + NOW + "))";
        String live = "(lock_owner = " + SHARED + " AND expires_at > " + NOW + ")";
        String prunedForAcquire = "(SELECT JSON_ARRAYAGG(JSON_ARRAY(j.o, j.e)) FROM " + ENTRIES.formatted("shared_holds")
                + " WHERE j.e > " + NOW_US + " AND j.o" + BIN + " <> ?" + BIN + ")";
        this.acquireShared = sql(ACQUIRE_SHARED.formatted(SHARED, first, NOW, LEASE, EXPIRY_US, next, ok, live,
                prunedForAcquire, BUSY));
        String take = "(lock_owner IS NULL OR expires_at <= " + NOW + " OR lock_owner = VALUES(lock_owner))";
        this.acquireMarking = sql(ACQUIRE_MARKING.formatted(NOW, first, next, LEASE, take, BUSY));
    }

    @Override
    void setKey(PreparedStatement statement, int index, String key) throws SQLException {
        statement.setBytes(index, key.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public LockSql.Outcome acquireShared(Connection connection, StoredKey key, String owner, long leaseMillis,
                                         long[] requestedAt) throws SQLException {
        try (PreparedStatement statement = prepareReturningKeys(connection, acquireShared)) {
            setKey(statement, 1, key.value());
            statement.setLong(2, leaseMillis);
            statement.setString(3, key.original());
            statement.setString(4, owner);
            statement.setLong(5, leaseMillis);
            statement.setString(6, owner);
            requestedAt[0] = System.nanoTime();
            statement.executeUpdate();
            return answer(statement);
        }
    }

    @Override
    public LockSql.Outcome acquireMarking(Connection connection, StoredKey key, String owner, long leaseMillis,
                                          long markMillis, long[] requestedAt) throws SQLException {
        try (PreparedStatement statement = prepareReturningKeys(connection, acquireMarking)) {
            setKey(statement, 1, key.value());
            statement.setString(2, owner);
            statement.setLong(3, leaseMillis);
            statement.setString(4, key.original());
            statement.setLong(5, markMillis);
            requestedAt[0] = System.nanoTime();
            statement.executeUpdate();
            return answer(statement);
        }
    }

    private static LockSql.Outcome answer(PreparedStatement statement) throws SQLException {
        try (ResultSet keys = statement.getGeneratedKeys()) {
            if (!keys.next()) {
                return LockSql.Outcome.busy(-1);
            }
            long answer = keys.getLong(1);
            if (answer >= BUSY) {
                return LockSql.Outcome.busy((answer - BUSY + 999) / 1000);
            }
            return answer > 0 ? LockSql.Outcome.granted(answer) : LockSql.Outcome.busy(-1);
        }
    }

    @Override
    public boolean renewShared(Connection connection, String key, String owner, long leaseMillis) throws SQLException {
        try (PreparedStatement statement = prepare(connection, renew)) {
            statement.setString(1, owner);
            statement.setString(2, owner);
            statement.setLong(3, leaseMillis);
            setKey(statement, 4, key);
            statement.setString(5, owner);
            return statement.executeUpdate() == 1;
        }
    }

    @Override
    public boolean releaseShared(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement statement = prepare(connection, release)) {
            statement.setString(1, owner);
            setKey(statement, 2, key);
            statement.setString(3, owner);
            return statement.executeUpdate() == 1;
        }
    }

    /** Two statements: the update, then the read of which holds are gone (MySQL has no UPDATE … RETURNING). */
    @Override
    public BitSet renewAllShared(Connection connection, List<LockSql.Held> holds, long leaseMillis)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, renewAll)) {
            statement.setString(1, grouped(holds));
            statement.setLong(2, leaseMillis);
            statement.setLong(3, leaseMillis);
            statement.executeUpdate();
        }
        try (PreparedStatement statement = prepare(connection, gone)) {
            statement.setString(1, MySqlLockSql.json(holds));
            return SqlTemplate.positionsFromOne(statement);
        }
    }

    /** {@code [["<key hex>", "<owners as a JSON array>"], …]}, in ASCII (see {@link MySqlLockSql#json}). */
    static String grouped(List<LockSql.Held> holds) {
        Map<String, List<LockSql.Held>> byKey = new LinkedHashMap<>();
        for (LockSql.Held held : holds) {
            byKey.computeIfAbsent(held.key(), k -> new ArrayList<>()).add(held);
        }
        HexFormat hex = HexFormat.of();
        StringBuilder out = new StringBuilder(holds.size() * 64).append('[');
        for (Map.Entry<String, List<LockSql.Held>> entry : byKey.entrySet()) {
            if (out.length() > 1) {
                out.append(',');
            }
            // The owners as a JSON array, by the same escaping as the holds' list, then as a JSON string.
            StringBuilder ownerArray = new StringBuilder("[");
            for (LockSql.Held held : entry.getValue()) {
                if (ownerArray.length() > 1) {
                    ownerArray.append(',');
                }
                ownerArray.append('"');
                MySqlLockSql.appendJsonString(ownerArray, held.owner(), hex);
                ownerArray.append('"');
            }
            ownerArray.append(']');
            out.append("[\"").append(hex.formatHex(entry.getKey().getBytes(StandardCharsets.UTF_8))).append("\",\"");
            MySqlLockSql.appendJsonString(out, ownerArray.toString(), hex);
            out.append("\"]");
        }
        return out.append(']').toString();
    }
}
