package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static dev.mortise.lock.jdbc.internal.MySqlExpressions.BIN;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.FROM_US;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.NOW;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.NOW_US;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.SHARED;

/**
 * MySQL and MariaDB semaphores: the row's {@code permits} column, a JSON
 * {@code {"limit": stored count, "holds": [[owner, count], …], "g": grant}}, next to the readers'
 * {@code [[owner, expiry µs], …]} in {@code shared_holds} ({@link MySqlSharedSql}). Only the counts
 * of live readers count (a crashed holder's permits end with its entry's expiry); the statements
 * rewrite {@code holds} from the live entries, and the last holder's release sets the column to NULL.
 *
 * <p>Admission is one {@code INSERT … ON DUPLICATE KEY UPDATE} answered through
 * {@code LAST_INSERT_ID(expr)} (MySQL has no RETURNING, see {@link MySqlAnswers}): the token when granted,
 * {@link MySqlAnswers#MISMATCH} plus the stored count when live holds keep another count, else
 * {@link MySqlAnswers#BUSY} plus the
 * µs until the first live hold expires. MySQL runs the assignments left to right, each seeing the
 * columns assigned before it, so {@code permits} is assigned first, deciding on the row as it was, and
 * when it grants it writes this attempt's own random {@code g}; every later assignment asks whether
 * {@code permits} now carries that {@code g}. The row lock of the upsert orders concurrent attempts.
 * There is no record of waiters here: waiters poll with backoff, so {@code record} is not used. Not fair:
 * whichever attempt comes first and fits is granted.
 */
final class MySqlPermitSql extends Statements implements PermitSql {

    /** The reader entries of the row as rows {@code j(o, e)}. */
    private static final String ENTRIES = MySqlExpressions.ENTRIES.formatted("shared_holds");
    /** The permit counts of the row as rows {@code c(o, n)}. */
    private static final String COUNTS = "JSON_TABLE(permits, '$.holds[*]' COLUMNS (o VARCHAR(255) CHARACTER SET utf8mb4"
            + " PATH '$[0]', n INT PATH '$[1]')) c";
    private static final String LIVE_ENTRY = "j.e > " + NOW_US;
    /** Live entries joined with their counts. */
    private static final String LIVE_COUNTED = ENTRIES + " JOIN " + COUNTS + " ON c.o" + BIN + " = j.o" + BIN
            + " WHERE " + LIVE_ENTRY;

    /** Whether the row is held by live permit holds only (every live reader entry has a count); never NULL. */
    private static final String HELD = "COALESCE(lock_owner = " + SHARED + " AND expires_at > " + NOW
            + " AND permits IS NOT NULL AND EXISTS (SELECT 1 FROM " + ENTRIES + " WHERE " + LIVE_ENTRY + ")"
            + " AND (SELECT COUNT(*) FROM " + ENTRIES + " WHERE " + LIVE_ENTRY + ")"
            + " = (SELECT COUNT(*) FROM " + LIVE_COUNTED + "), FALSE)";
    /** Whether the row is held otherwise: exclusively, or by a reader without permits. */
    private static final String OTHER_HELD = "COALESCE(lock_owner IS NOT NULL AND expires_at > " + NOW + " AND NOT "
            + HELD + ", FALSE)";
    private static final String STORED = "CAST(JSON_EXTRACT(permits, '$.limit') AS SIGNED)";
    private static final String USED = "(SELECT COALESCE(SUM(c.n), 0) FROM " + LIVE_COUNTED + ")";
    private static final String MARKED = "COALESCE(waiting_writer IS NOT NULL AND writer_waits_until > " + NOW + ", FALSE)";
    /** The counts of the live holds but {@code :o}'s, as {@code [[owner, count], …]}, or NULL if none. */
    private static final String LIVE_COUNTS_BUT = "(SELECT JSON_ARRAYAGG(JSON_ARRAY(c.o, c.n)) FROM " + LIVE_COUNTED
            + " AND c.o" + BIN + " <> :o" + BIN + ")";
    private static final String PRUNED_BUT = "(SELECT JSON_ARRAYAGG(JSON_ARRAY(j.o, j.e)) FROM " + ENTRIES + " WHERE "
            + LIVE_ENTRY + " AND j.o" + BIN + " <> :o" + BIN + ")";
    private static final String MAX_US = "(SELECT MAX(j.e) FROM " + ENTRIES + ")";
    /** Whether {@code permits} carries this attempt's grant (asked only after {@code permits} is assigned). */
    private static final String GRANTED = "COALESCE(JSON_UNQUOTE(JSON_EXTRACT(permits, '$.g')) = :g, FALSE)";
    private static final String OWN_ENTRY_LIVE = "lock_owner = " + SHARED + " AND expires_at > " + NOW
            + " AND EXISTS (SELECT 1 FROM " + ENTRIES + " WHERE j.o" + BIN + " = :o" + BIN + " AND " + LIVE_ENTRY + ")";

    private static final String ACQUIRE = """
            INSERT INTO ${table} (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key,
                shared_holds, permits)
            VALUES (:k, {SHARED}, LAST_INSERT_ID({FIRST}), {NOW}, {NOW} + INTERVAL (:lease * 1000) MICROSECOND, :orig,
                JSON_ARRAY(JSON_ARRAY(:o, {NOW_US} + :lease * 1000)),
                JSON_OBJECT('limit', :lim, 'holds', JSON_ARRAY(JSON_ARRAY(:o, :n)), 'g', :g))
            ON DUPLICATE KEY UPDATE
              permits = IF({OK}, IF({HELD}, JSON_SET(permits, '$.g', :g, '$.holds',
                  JSON_ARRAY_APPEND(COALESCE({LIVE_COUNTS_BUT}, JSON_ARRAY()), '$', JSON_ARRAY(:o, :n))),
                VALUES(permits)), permits),
              fencing_token = IF({GRANTED}, LAST_INSERT_ID({NEXT}),
                IF(LAST_INSERT_ID(IF({HELD} AND NOT :follow AND {STORED} <> :lim, {MISMATCH} + {STORED},
                  {BUSY} + GREATEST(0, COALESCE(IF({HELD}, (SELECT MIN(j.e) FROM {ENTRIES} WHERE {LIVE_ENTRY}) - {NOW_US},
                    TIMESTAMPDIFF(MICROSECOND, {NOW}, IF(lock_owner IS NOT NULL AND expires_at > {NOW}, expires_at,
                      writer_waits_until))), 0)))) > 0, fencing_token, fencing_token)),
              acquired_at = IF({GRANTED} AND NOT COALESCE(lock_owner = {SHARED} AND expires_at > {NOW}, FALSE), {NOW},
                acquired_at),
              shared_holds = IF({GRANTED}, IF(COALESCE(lock_owner = {SHARED} AND expires_at > {NOW}, FALSE),
                JSON_MERGE_PRESERVE(COALESCE({PRUNED_BUT}, JSON_ARRAY()), VALUES(shared_holds)), VALUES(shared_holds)),
                shared_holds),
              expires_at = IF({GRANTED}, {FROM_MAX}, expires_at),
              lock_owner = IF({GRANTED}, {SHARED}, lock_owner)""";

    /** The last leaving clears the count; {@code permits} and {@code lock_owner} read the entries just assigned. */
    private static final String RELEASE = "UPDATE ${table} SET shared_holds = " + PRUNED_BUT + ", expires_at = "
            + FROM_US.formatted(MAX_US) + ", permits = IF(shared_holds IS NULL, NULL, JSON_SET(permits, '$.holds',"
            + " JSON_MERGE_PRESERVE(JSON_ARRAY(), COALESCE((SELECT JSON_ARRAYAGG(JSON_ARRAY(c.o, c.n)) FROM " + LIVE_COUNTED
            + "), JSON_ARRAY())))), lock_owner = IF(shared_holds IS NULL, NULL, lock_owner)"
            + " WHERE lock_key = :k AND " + OWN_ENTRY_LIVE;

    private static final String SET_PERMITS = "UPDATE ${table} SET permits = JSON_SET(permits, '$.limit', :lim)"
            + " WHERE lock_key = :k AND " + HELD;

    private final NamedSql acquire;
    private final NamedSql release;
    private final NamedSql setPermits;

    MySqlPermitSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, true);
        String ok = "(NOT " + MARKED + " AND NOT " + OTHER_HELD + " AND (NOT " + HELD + " OR ((:follow OR " + STORED
                + " = :lim) AND " + USED + " + :n <= " + STORED + ")))";
        String sql = ACQUIRE
                .replace("{OK}", ok)
                .replace("{HELD}", HELD)
                .replace("{LIVE_COUNTS_BUT}", LIVE_COUNTS_BUT)
                .replace("{PRUNED_BUT}", PRUNED_BUT)
                .replace("{GRANTED}", GRANTED)
                .replace("{STORED}", STORED)
                .replace("{FROM_MAX}", FROM_US.formatted(MAX_US))
                .replace("{ENTRIES}", ENTRIES)
                .replace("{LIVE_ENTRY}", LIVE_ENTRY)
                .replace("{MISMATCH}", Long.toString(MySqlAnswers.MISMATCH))
                .replace("{BUSY}", Long.toString(MySqlAnswers.BUSY))
                .replace("{FIRST}", first)
                .replace("{NEXT}", next)
                .replace("{SHARED}", SHARED)
                .replace("{NOW_US}", NOW_US)
                .replace("{NOW}", NOW)
                .replace("${table}", table.sql());
        this.acquire = NamedSql.of(sql);
        this.release = NamedSql.of(RELEASE.replace("${table}", table.sql()));
        this.setPermits = NamedSql.of(SET_PERMITS.replace("${table}", table.sql()));
    }

    @Override
    public Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, int count, int limit,
                           boolean follow, boolean record, long markMillis, long[] requestedAt) throws SQLException {
        String grant = UUID.randomUUID().toString();
        try (PreparedStatement statement = prepareReturningKeys(connection, acquire.sql())) {
            Map<String, Object> values = new HashMap<>(Map.of("k", key(key.value()), "o", owner, "lease", leaseMillis,
                    "lim", limit, "n", count, "g", grant, "follow", follow));
            values.put("orig", key.original()); // null unless the key was shortened
            acquire.bind(statement, values);
            requestedAt[0] = System.nanoTime();
            statement.executeUpdate();
            return MySqlAnswers.readPermits(statement);
        }
    }

    @Override
    public boolean release(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement statement = prepare(connection, release)) {
            release.bind(statement, Map.of("k", key(key), "o", owner));
            return statement.executeUpdate() == 1;
        }
    }

    @Override
    public void setPermits(Connection connection, String key, int limit) throws SQLException {
        try (PreparedStatement statement = prepare(connection, setPermits)) {
            setPermits.bind(statement, Map.of("k", key(key), "lim", limit));
            statement.executeUpdate();
        }
    }
}
