package dev.mortise.lock.jdbc.internal;

/**
 * The SQL fragments MySQL's and MariaDB's statements share: the database's clock and the readers'
 * JSON array {@code [[owner, expiry µs], …]} ({@link MySqlSharedSql}). Time is
 * {@code UTC_TIMESTAMP(6)}, never {@code NOW()}: {@code DATETIME} columns carry no zone, and
 * sessions with different time zones must agree on expiry. Constants only: nothing user-given.
 */
final class MySqlExpressions {

    static final String NOW = "UTC_TIMESTAMP(6)";
    /**
     * The database's clock in microseconds since 1970, zone-independent (a difference of two
     * UTC times, never {@code UNIX_TIMESTAMP(NOW(6))}, which goes through the session's zone)
     * and exact (an integer).
     */
    static final String NOW_US = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', " + NOW + ")";
    /** {@link #NOW} plus one bound parameter of milliseconds. */
    static final String LEASE = NOW + " + INTERVAL (? * 1000) MICROSECOND";
    /** A reader's expiry in µs, over one parameter of milliseconds. */
    static final String EXPIRY_US = "(" + NOW_US + " + ? * 1000)";
    /** A time from µs since 1970 ({@code %s}). */
    static final String FROM_US = "TIMESTAMPADD(MICROSECOND, %s, '1970-01-01 00:00:00')";
    /** Owners are compared with {@code utf8mb4_bin}, never a folding collation. */
    static final String BIN = " COLLATE utf8mb4_bin";
    /** The entries of a JSON column or parameter {@code %s} as rows {@code j(o, e)}. */
    static final String ENTRIES = "JSON_TABLE(%s, '$[*]' COLUMNS (o VARCHAR(255) CHARACTER SET utf8mb4"
            + " PATH '$[0]', e BIGINT PATH '$[1]')) j";
    static final String SHARED = SharedSql.SHARED_OWNER_SQL;

    private MySqlExpressions() {
    }
}
