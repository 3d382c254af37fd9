package dev.mortise.lock.jdbc.internal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;

/**
 * MySQL and MariaDB: acquire is one {@code INSERT … ON DUPLICATE KEY UPDATE} whose
 * answer travels in the OK packet's last-insert-id, so it takes one round trip with no
 * {@code RETURNING} (MySQL has none) and no multi-statement text: the statement calls
 * {@code LAST_INSERT_ID(token)} when it grants and {@code LAST_INSERT_ID(2^62 + holder's
 * remaining microseconds)} when busy, and the driver hands the value back as the
 * generated key. Fencing tokens stay below 2^62, so the two never meet.
 *
 * <p>The assignments run left to right, each seeing the columns already assigned, so
 * the order matters: token and acquired-at are decided on the old owner and expiry, then
 * the owner is taken, and the expiry moves only if the owner is now ours.
 *
 * <p>Time is {@code UTC_TIMESTAMP(6)}, never {@code NOW()}: {@code DATETIME} columns
 * carry no zone, and sessions with different time zones must agree on expiry.
 */
final class MySqlLockSql extends SqlTemplate {

    static final long BUSY = 1L << 62;
    /** What a server without {@code JSON_TABLE} answers to the renewAll statement. */
    private static final int ER_PARSE_ERROR = 1064;
    private static final String NOW = "UTC_TIMESTAMP(6)";
    private static final String LEASE = NOW + " + INTERVAL (? * 1000) MICROSECOND";
    private static final String FREE = "(lock_owner IS NULL OR expires_at <= " + NOW
            + " OR lock_owner = VALUES(lock_owner))";

    /**
     * The database's clock in microseconds since 1970, zone-independent (a difference of two
     * UTC times, never {@code UNIX_TIMESTAMP(NOW(6))}, which goes through the session's zone)
     * and exact (an integer).
     */
    static final String CLOCK_MICROS = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', " + NOW + ")";

    /**
     * Acquire, over: now, free, busy offset, lease, the token of a new row, the token of a new
     * holder of an existing row.
     */
    private static final String ACQUIRE = """
            INSERT INTO ${table} (lock_key, lock_owner, fencing_token, acquired_at, expires_at, original_key)
            VALUES (?, ?, LAST_INSERT_ID(%5$s), %1$s, %4$s, ?)
            ON DUPLICATE KEY UPDATE
              fencing_token = IF(%2$s,
                LAST_INSERT_ID(IF(lock_owner <=> VALUES(lock_owner), fencing_token, %6$s)),
                IF(LAST_INSERT_ID(%3$d + GREATEST(0, TIMESTAMPDIFF(MICROSECOND, %1$s, expires_at))) > 0,
                   fencing_token, fencing_token)),
              acquired_at = IF(%2$s, IF(lock_owner <=> VALUES(lock_owner), acquired_at, %1$s), acquired_at),
              lock_owner = IF(%2$s, VALUES(lock_owner), lock_owner),
              expires_at = IF(lock_owner <=> VALUES(lock_owner), VALUES(expires_at), expires_at)""";

    private final String acquire;

    /**
     * The holds as one JSON parameter, {@code [["<key as hex>", "<owner>"], …]}: the key as
     * hex of its UTF-8 bytes (what the VARBINARY column holds, whatever the connection's
     * character set), the owner as a JSON string with every non-ASCII character escaped, so
     * the parameter is ASCII. {@code JSON_TABLE} needs MySQL 8.0.4 or MariaDB 10.6.
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

    /** @param serverClock whether a new holder's token is {@code max(token + 1, clock in µs)}, see {@link #CLOCK_MICROS} */
    MySqlLockSql(TableName table, int queryTimeoutSeconds, boolean serverClock) {
        super(table, queryTimeoutSeconds, NOW, LEASE);
        String first = serverClock ? CLOCK_MICROS : "1";
        String next = serverClock ? "GREATEST(fencing_token + 1, " + CLOCK_MICROS + ")" : "fencing_token + 1";
        this.acquire = sql(ACQUIRE.formatted(NOW, FREE, BUSY, LEASE, first, next));
    }

    @Override
    public Outcome acquire(Connection connection, StoredKey key, String owner, long leaseMillis, long[] requestedAt)
            throws SQLException {
        try (PreparedStatement statement = prepareReturningKeys(connection, acquire)) {
            bindAcquire(statement, key, owner, leaseMillis);
            requestedAt[0] = System.nanoTime();
            statement.executeUpdate();
            try (ResultSet keys = statement.getGeneratedKeys()) {
                if (!keys.next()) {
                    return Outcome.busy(-1);
                }
                long answer = keys.getLong(1);
                if (answer >= BUSY) {
                    return Outcome.busy((answer - BUSY + 999) / 1000);
                }
                return answer > 0 ? Outcome.granted(answer) : Outcome.busy(-1);
            }
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
        String holds = json(run);
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

    static String json(List<Held> holds) {
        HexFormat hex = HexFormat.of();
        StringBuilder out = new StringBuilder(holds.size() * 64);
        out.append('[');
        for (Held held : holds) {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append("[\"").append(hex.formatHex(bytes(held.key()))).append("\",\"");
            appendJsonString(out, held.owner(), hex);
            out.append("\"]");
        }
        return out.append(']').toString();
    }

    /**
     * JSON string content in ASCII: other characters as {@code \\uXXXX} escapes, a lone
     * surrogate as {@code ?} (what the driver would send for it when the owner was stored).
     */
    static void appendJsonString(StringBuilder out, String text, HexFormat hex) {
        text.codePoints().forEach(cp -> {
            if (cp == '"' || cp == '\\') {
                out.append('\\').append((char) cp);
            } else if (cp >= 0x20 && cp < 0x7f) {
                out.append((char) cp);
            } else if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
                out.append('?');
            } else {
                for (char c : Character.toChars(cp)) {
                    out.append("\\u").append(hex.toHexDigits((short) c));
                }
            }
        });
    }

    @Override
    void setKey(PreparedStatement statement, int index, String key) throws SQLException {
        statement.setBytes(index, bytes(key));
    }

    /**
     * Keys go to the VARBINARY column as UTF-8 bytes, never as strings the driver would
     * encode in the connection's character set: clients configured with different
     * character sets must still meet on the same row.
     */
    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }
}
