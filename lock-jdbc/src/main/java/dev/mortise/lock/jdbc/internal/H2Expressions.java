package dev.mortise.lock.jdbc.internal;

/**
 * The SQL fragments H2's statements share: the database's clock and the readers'
 * {@code VARCHAR ARRAY} ({@link H2SharedSql}). Constants only: nothing user-given.
 */
final class H2Expressions {

    static final String NOW = "CURRENT_TIMESTAMP";
    /** {@link #NOW} plus one bound parameter of milliseconds. */
    static final String LEASE = "DATEADD(MILLISECOND, CAST(? AS BIGINT), " + NOW + ")";
    static final String EPOCH = "TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00'";
    /**
     * The database's clock in microseconds since 1970: the statement's {@code CURRENT_TIMESTAMP}
     * (a time with zone, so the session's zone does not matter) less the epoch.
     */
    static final String NOW_US = "DATEDIFF(MICROSECOND, " + EPOCH + ", " + NOW + ")";
    /** A time from µs since 1970 ({@code %s}). */
    static final String FROM_US = "DATEADD(MICROSECOND, %s, " + EPOCH + ")";
    static final String EMPTY = "CAST(ARRAY[] AS VARCHAR ARRAY)";
    static final String SHARED = SharedSql.SHARED_OWNER_SQL;
    /**
     * H2 cannot unnest a column of the row being merged, so the statements walk the readers' array
     * by index over {@code SYSTEM_RANGE(1, MAX_READERS)}: a key records at most that many readers at
     * once, and a reader beyond them waits (busy) until one leaves.
     */
    static final int MAX_READERS = 1024;

    private H2Expressions() {
    }
}
