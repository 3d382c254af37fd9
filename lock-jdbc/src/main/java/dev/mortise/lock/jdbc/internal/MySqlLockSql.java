package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;

import static dev.mortise.lock.jdbc.internal.MySqlExpressions.LEASE;
import static dev.mortise.lock.jdbc.internal.MySqlExpressions.NOW;

/**
 * MySQL and MariaDB: acquire is one {@code INSERT … ON DUPLICATE KEY UPDATE} whose answer travels
 * in the last-insert-id ({@link MySqlAnswers}), so it takes one round trip with no
 * {@code RETURNING} (MySQL has none) and no multi-statement text.
 *
 * <p>The assignments run left to right, each seeing the columns already assigned, so
 * the order matters: token and acquired-at are decided on the old owner and expiry, then
 * the owner is taken, and the expiry moves only if the owner is now ours.
 */
final class MySqlLockSql extends SqlTemplate {

    /** What a server without {@code JSON_TABLE} answers to the renewAll statement. */
    private static final int ER_PARSE_ERROR = 1064;

    /** The exclusive take, decided on the owner and expiry before they are assigned: free, expired or own. */
    static final String TAKE = "(lock_owner IS NULL OR expires_at <= " + NOW
            + " OR lock_owner = VALUES(lock_owner))";

    /**
     * Acquire, over: key, owner, lease, original key. {TOKEN} answers the decision: the token this
     * statement keeps or writes when TAKE holds, else BUSY plus the holder's remaining µs.
     */
    private static final String ACQUIRE = """
            INSERT INTO ${table} (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
            VALUES (?, ?, LAST_INSERT_ID({FIRST}), {NOW}, {LEASE}, ?)
            ON DUPLICATE KEY UPDATE
              fencing_token = {TOKEN},
              acquired_at = IF({TAKE}, IF(lock_owner <=> VALUES(lock_owner), acquired_at, {NOW}), acquired_at),
              lock_owner = IF({TAKE}, VALUES(lock_owner), lock_owner),
              expires_at = IF(lock_owner <=> VALUES(lock_owner), VALUES(expires_at), expires_at)""";

    /** The token assignment of an exclusive take, over the token of a new holder ({NEXT}): the statement's answer. */
    static final String TOKEN = """
            IF({TAKE},
                LAST_INSERT_ID(IF(lock_owner <=> VALUES(lock_owner), fencing_token, {NEXT})),
                IF(LAST_INSERT_ID({BUSY} + GREATEST(0, TIMESTAMPDIFF(MICROSECOND, {NOW}, expires_at))) > 0,
                   fencing_token, fencing_token))""";

    private final String acquire;

    /**
     * The holds as one JSON parameter ({@link MySqlJson#holds}). {@code JSON_TABLE} needs MySQL
     * 8.0.4 or MariaDB 10.6.
     */
    private static final String HOLDS = """
            JSON_TABLE(?, '$[*]' COLUMNS (
                i FOR ORDINALITY,
                k VARCHAR(6144) CHARACTER SET ascii PATH '$[0]',
                o VARCHAR(1024) CHARACTER SET utf8mb4 PATH '$[1]')) AS h""";
    private static final String OURS = "t.lock_key = UNHEX(h.k) AND t.lock_owner = h.o COLLATE utf8mb4_bin"
            + " AND t.expires_at > " + NOW;

    private final String renewAll = sql("UPDATE ${table} t JOIN " + HOLDS + " ON " + OURS
            + " SET t.expires_at = " + LEASE);

    private final String gone = sql("SELECT h.i FROM " + HOLDS
            + " WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE " + OURS + ")");

    /** @param first the token of a new row, {@code next} that of a new holder of an existing row */
    MySqlLockSql(TableName table, int queryTimeoutSeconds, String first, String next) {
        super(table, queryTimeoutSeconds, true, NOW, LEASE);
        this.acquire = sql(ACQUIRE.replace("{TOKEN}", token(next)).replace("{TAKE}", TAKE).replace("{FIRST}", first)
                .replace("{LEASE}", LEASE).replace("{NOW}", NOW));
    }

    /** {@link #TOKEN} for the token of a new holder {@code next}. */
    static String token(String next) {
        return TOKEN.replace("{TAKE}", TAKE).replace("{NEXT}", next).replace("{BUSY}", Long.toString(MySqlAnswers.BUSY))
                .replace("{NOW}", NOW);
    }

    @Override
    public Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, long[] requestedAt)
            throws SQLException {
        try (PreparedStatement statement = prepareReturningKeys(connection, acquire)) {
            bindAcquire(statement, key, owner, leaseMillis);
            requestedAt[0] = System.nanoTime();
            statement.executeUpdate();
            return MySqlAnswers.read(statement);
        }
    }

    /**
     * One UPDATE, whose matched-row count says whether every hold was renewed; only when
     * it is short does a second statement learn which holds are gone. MySQL has no
     * {@code UPDATE … RETURNING}, and two statements in one call would need the driver's
     * multi-query flag. A hold the update did not renew was expired or not ours, and nothing
     * can make it ours and live again in between (owners are unique per hold), so the read
     * is exact. The count is of matched rows, as both drivers report by default; a driver set
     * to count changed rows only can make it short, never long, which costs the read and
     * nothing else.
     */
    @Override
    BitSet renewRun(Connection connection, List<Held> run, long leaseMillis) throws SQLException {
        String holds = MySqlJson.holds(run);
        try (PreparedStatement statement = prepare(connection, renewAll)) {
            statement.setString(1, holds);
            statement.setLong(2, leaseMillis);
            if (statement.executeUpdate() == run.size()) {
                return new BitSet();
            }
        } catch (SQLException e) {
            if (e.getErrorCode() == ER_PARSE_ERROR) {
                throw new SQLException("renewing locks uses JSON_TABLE, which needs MySQL 8.0.4 or MariaDB 10.6 or "
                        + "later: " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
            }
            throw e;
        }
        try (PreparedStatement statement = prepare(connection, gone)) {
            statement.setString(1, holds);
            return positionsFromOne(statement);
        }
    }
}
