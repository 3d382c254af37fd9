package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

import static dev.mortise.lock.jdbc.internal.MySqlExpressions.BIN;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.ENTRIES;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.EXPIRY_US;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.FROM_US;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.LEASE;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.NOW;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.NOW_US;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.SHARED;

/**
 * MySQL and MariaDB: readers are a JSON array {@code [[owner, expiry µs], …]} in the row, read
 * with {@code JSON_TABLE} over the row's own column. Acquire answers through
 * {@code LAST_INSERT_ID(expr)} in one round trip, as the exclusive acquire does
 * ({@link MySqlAnswers}); its assignments run left to right, each seeing the columns assigned
 * before it, so their order is part of the algorithm. Owners are compared with
 * {@code utf8mb4_bin}, never a folding collation.
 */
final class MySqlSharedSql extends Statements implements SharedSql {

    /** The unexpired entries but {@code owner}'s (one parameter), or NULL. */
    private static final String PRUNED_BUT = "(SELECT JSON_ARRAYAGG(JSON_ARRAY(j.o, j.e)) FROM "
            + ENTRIES.formatted("shared_holds") + " WHERE j.e > " + NOW_US + " AND j.o" + BIN + " <> ?" + BIN + ")";
    private static final String MAX_US = "(SELECT MAX(j.e) FROM " + ENTRIES.formatted("shared_holds") + ")";
    private static final String OWN_ENTRY_LIVE = "lock_owner = " + SHARED + " AND expires_at > " + NOW
            + " AND EXISTS (SELECT 1 FROM " + ENTRIES.formatted("shared_holds") + " WHERE j.o" + BIN + " = ?" + BIN
            + " AND j.e > " + NOW_US + ")";
    /** Whether the row admits a new reader, decided before lock_owner and expires_at are assigned. */
    private static final String ADMITS = "((lock_owner IS NULL OR expires_at <= " + NOW + " OR lock_owner = " + SHARED
            + ") AND (waiting_writer IS NULL OR writer_waits_until <= " + NOW + "))";
    /** Whether the row is held shared, unexpired (before lock_owner and expires_at are assigned). */
    private static final String LIVE = "(lock_owner = " + SHARED + " AND expires_at > " + NOW + ")";

    /**
     * Over: key, lease, original key, owner, lease (entry); then in the update: owner (pruning).
     * ADMITS and LIVE read lock_owner and expires_at before they are assigned. expires_at comes last and
     * cannot ask ADMITS again (lock_owner has changed): the row shows the shared owner and no unexpired
     * marker after the assignment of lock_owner exactly when the reader was granted; then an old
     * expiry still ahead can only be live readers', which the new one joins.
     */
    private static final String ACQUIRE_SHARED = """
            INSERT INTO ${table} (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key, shared_holds)
            VALUES (?, {SHARED}, LAST_INSERT_ID({FIRST}), {NOW}, {LEASE}, ?, JSON_ARRAY(JSON_ARRAY(?, {EXPIRY_US})))
            ON DUPLICATE KEY UPDATE
              shared_holds = IF({ADMITS}, IF({LIVE}, JSON_MERGE_PRESERVE(COALESCE({PRUNED_BUT}, JSON_ARRAY()),
                VALUES(shared_holds)), VALUES(shared_holds)), shared_holds),
              acquired_at = IF({ADMITS}, IF({LIVE}, acquired_at, {NOW}), acquired_at),
              fencing_token = IF({ADMITS}, LAST_INSERT_ID({NEXT}),
                IF(LAST_INSERT_ID({BUSY} + GREATEST(0, TIMESTAMPDIFF(MICROSECOND, {NOW}, IF(lock_owner IS NOT NULL
                  AND expires_at > {NOW}, expires_at, writer_waits_until)))) > 0, fencing_token, fencing_token)),
              lock_owner = IF({ADMITS}, {SHARED}, lock_owner),
              expires_at = IF(lock_owner = {SHARED} AND (waiting_writer IS NULL OR writer_waits_until <= {NOW}),
                IF(expires_at > {NOW}, GREATEST(expires_at, VALUES(expires_at)), VALUES(expires_at)), expires_at)""";

    /** Over: owner (pruning), owner, lease, key, owner. expires_at reads the entries just assigned. */
    private final String renew = sql("UPDATE ${table} SET shared_holds = JSON_ARRAY_APPEND(COALESCE(" + PRUNED_BUT
            + ", JSON_ARRAY()), '$', JSON_ARRAY(?, " + EXPIRY_US + ")), expires_at = " + FROM_US.formatted(MAX_US)
            + " WHERE lock_key = ? AND " + OWN_ENTRY_LIVE);

    /** Over: owner (pruning), key, owner. The row is free when no other entry is unexpired. */
    private final String release = sql("UPDATE ${table} SET shared_holds = " + PRUNED_BUT + ", expires_at = "
            + FROM_US.formatted(MAX_US) + ", lock_owner = IF(shared_holds IS NULL, NULL, lock_owner)"
            + " WHERE lock_key = ? AND " + OWN_ENTRY_LIVE);

    /**
     * Over: the holds grouped by key ({@link MySqlJson#groupedByKey}), lease. The update is
     * multi-table, whose assignments MySQL may run in any order: expires_at is computed so that it
     * comes out the same from the entries before or after their update.
     */
    private final String renewAll = sql(("UPDATE ${table} t JOIN JSON_TABLE(?, '$[*]' COLUMNS ("
            + "k VARCHAR(6144) CHARACTER SET ascii PATH '$[0]', os TEXT CHARACTER SET utf8mb4 PATH '$[1]')) g"
            + " ON t.lock_key = UNHEX(g.k) AND t.lock_owner = " + SHARED + " AND t.expires_at > " + NOW
            + " SET t.shared_holds = (SELECT JSON_ARRAYAGG(JSON_ARRAY(j.o, IF(%1$s, %2$s, j.e))) FROM %3$s WHERE j.e > %4$s),"
            + " t.expires_at = " + FROM_US.formatted("(SELECT MAX(IF(%1$s, %2$s, j.e)) FROM %3$s WHERE j.e > %4$s)"))
            .formatted("JSON_CONTAINS(g.os, JSON_QUOTE(j.o))", "(" + NOW_US + " + ? * 1000)",
                    ENTRIES.formatted("t.shared_holds"), NOW_US));

    /** Over: the holds ({@link MySqlJson#holds}): the positions whose entry is not unexpired. */
    private final String gone = sql("SELECT h.i FROM JSON_TABLE(?, '$[*]' COLUMNS (i FOR ORDINALITY,"
            + " k VARCHAR(6144) CHARACTER SET ascii PATH '$[0]', o VARCHAR(1024) CHARACTER SET utf8mb4 PATH '$[1]')) h"
            + " WHERE NOT EXISTS (SELECT 1 FROM ${table} t, " + ENTRIES.formatted("t.shared_holds")
            + " WHERE t.lock_key = UNHEX(h.k) AND t.lock_owner = " + SHARED + " AND t.expires_at > " + NOW
            + " AND j.o" + BIN + " = h.o" + BIN + " AND j.e > " + NOW_US + ")");

    private final String acquireShared;

    /** @param first the token of a new row, {@code next} that of a new grant on an existing row */
    MySqlSharedSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, true);
        this.acquireShared = sql(ACQUIRE_SHARED.replace("{ADMITS}", ADMITS).replace("{LIVE}", LIVE)
                .replace("{PRUNED_BUT}", PRUNED_BUT).replace("{EXPIRY_US}", EXPIRY_US).replace("{FIRST}", first)
                .replace("{NEXT}", next).replace("{BUSY}", Long.toString(MySqlAnswers.BUSY)).replace("{LEASE}", LEASE)
                .replace("{SHARED}", SHARED).replace("{NOW}", NOW));
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
            return MySqlAnswers.read(statement);
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
            statement.setString(1, MySqlJson.groupedByKey(holds));
            statement.setLong(2, leaseMillis);
            statement.setLong(3, leaseMillis);
            statement.executeUpdate();
        }
        try (PreparedStatement statement = prepare(connection, gone)) {
            statement.setString(1, MySqlJson.holds(holds));
            return SqlTemplate.positionsFromOne(statement);
        }
    }
}
