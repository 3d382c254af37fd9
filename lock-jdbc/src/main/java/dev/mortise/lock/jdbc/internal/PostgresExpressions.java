package dev.mortise.lock.jdbc.internal;

/**
 * The SQL fragments PostgreSQL's statements share: the database's clock, the readers'
 * {@code jsonb} object {@code {owner: expiry µs}} ({@link PostgresSharedSql}) and the busy
 * answer's remaining time. Constants only: nothing user-given.
 */
final class PostgresExpressions {

    static final String NOW = "CURRENT_TIMESTAMP";
    /** {@link #NOW} in µs since 1970: the clock every reader entry and waiter record is written and judged by. */
    static final String NOW_US = "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000000) AS BIGINT)";
    /** {@link #NOW} plus one bound parameter of milliseconds. */
    static final String LEASE = "(" + NOW + " + CAST(? AS BIGINT) * INTERVAL '1 millisecond')";
    /** A reader's expiry in µs, over one parameter of milliseconds. */
    static final String EXPIRY_US = "(" + NOW_US + " + CAST(? AS BIGINT) * 1000)";
    /** A time from µs since 1970 ({@code %s}), exactly. */
    static final String FROM_US = "(TIMESTAMP WITH TIME ZONE 'epoch' + (%s) * INTERVAL '1 microsecond')";

    /**
     * The database's clock in microseconds since 1970, read when the row is written (after any
     * wait for the row lock): {@code clock_timestamp()}, not the transaction's start time
     * {@code CURRENT_TIMESTAMP}, so the reading is as late as it can be. Exact: EXTRACT answers
     * numeric from PostgreSQL 14, and a double with microsecond precision before.
     */
    static final String CLOCK_MICROS = "CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000) AS BIGINT)";

    static final String SHARED = SharedSql.SHARED_OWNER_SQL;
    /** Whether row {@code l} is held shared, unexpired. */
    static final String LIVE_SHARED = "(l.lock_owner = " + SHARED + " AND l.expires_at > " + NOW + ")";
    /** The unexpired entries of {@code %s}, or NULL if none. */
    static final String PRUNED = "(SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(%s) e"
            + " WHERE CAST(e.value AS BIGINT) > " + NOW_US + ")";
    /** The latest expiry in µs among the entries of {@code %s}. */
    static final String MAX_US = "(SELECT MAX(CAST(e.value AS BIGINT)) FROM jsonb_each(%s) e)";

    private PostgresExpressions() {
    }

    /** Whole milliseconds, at least 0, from now until the time {@code until}. */
    static String remainingMillis(String until) {
        return "CAST(GREATEST(0, CEIL(EXTRACT(EPOCH FROM (" + until + " - " + NOW + ")) * 1000)) AS BIGINT)";
    }

    /**
     * The milliseconds until row {@code row} may admit a request again: until its hold expires if
     * it is held, else until its waiting writer's marker expires (the refusal's other cause).
     */
    static String blockedMillis(String row) {
        return remainingMillis(("CASE WHEN R.lock_owner IS NOT NULL AND R.expires_at > " + NOW
                + " THEN R.expires_at ELSE R.writer_waits_until END").replace("R.", row + "."));
    }
}
