package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.jdbc.JdbcDialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;

/** Builds the per-dialect pieces, keeping the optional PostgreSQL driver out of every other path. */
public final class Dialects {

    private static final Logger log = LoggerFactory.getLogger(Dialects.class);

    private Dialects() {
    }

    /**
     * @param serverClock whether a new holder's token is {@code max(token + 1, database clock in µs)}
     *                    ({@link dev.mortise.lock.FencingTokens#SERVER_CLOCK}) rather than {@code token + 1}
     */
    public static LockSql sql(JdbcDialect dialect, TableName table, int queryTimeoutSeconds, boolean serverClock) {
        return switch (dialect) {
            case POSTGRESQL -> new PostgresLockSql(table, queryTimeoutSeconds, serverClock);
            case MYSQL -> new MySqlLockSql(table, queryTimeoutSeconds, serverClock);
            case H2 -> new H2LockSql(table, queryTimeoutSeconds, serverClock);
        };
    }

    /**
     * The statements for shared holds and waiting writers, numbering tokens as {@link #sql} does
     * (a reader's grant takes the next token of the same counter); {@code sql} is this backend's
     * {@link #sql}, whose record of the table's columns they share. {@code recordWaiters}: whether
     * waiting requests record themselves so releases notify them (PostgreSQL, when this backend
     * listens for releases; a backend that polls records nothing).
     */
    public static SharedSql sharedSql(JdbcDialect dialect, TableName table, int queryTimeoutSeconds,
                                      boolean serverClock, LockSql sql, boolean recordWaiters) {
        return switch (dialect) {
            case POSTGRESQL -> new PostgresSharedSql(table, queryTimeoutSeconds,
                    first(serverClock, PostgresLockSql.CLOCK_MICROS), next(serverClock, "l.", PostgresLockSql.CLOCK_MICROS),
                    ((PostgresLockSql) sql).waiters(), recordWaiters);
            case MYSQL -> new MySqlSharedSql(table, queryTimeoutSeconds,
                    first(serverClock, MySqlLockSql.CLOCK_MICROS), next(serverClock, "", MySqlLockSql.CLOCK_MICROS));
            case H2 -> new H2SharedSql(table, queryTimeoutSeconds,
                    first(serverClock, H2LockSql.CLOCK_MICROS), next(serverClock, "l.", H2LockSql.CLOCK_MICROS));
        };
    }

    /**
     * The statements of native semaphores, numbering tokens as {@link #sql} does (each grant takes the
     * next token of its key's one counter). Every dialect has them.
     */
    public static PermitSql permitSql(JdbcDialect dialect, TableName table, int queryTimeoutSeconds,
                                      boolean serverClock) {
        return switch (dialect) {
            case POSTGRESQL -> new PostgresPermitSql(table, queryTimeoutSeconds,
                    first(serverClock, PostgresLockSql.CLOCK_MICROS), next(serverClock, "l.", PostgresLockSql.CLOCK_MICROS));
            case MYSQL -> new MySqlPermitSql(table, queryTimeoutSeconds,
                    first(serverClock, MySqlLockSql.CLOCK_MICROS), next(serverClock, "", MySqlLockSql.CLOCK_MICROS));
            case H2 -> new H2PermitSql(table, queryTimeoutSeconds,
                    first(serverClock, H2LockSql.CLOCK_MICROS), next(serverClock, "l.", H2LockSql.CLOCK_MICROS));
        };
    }

    /**
     * The all-or-nothing multi-key acquire, numbering tokens as {@link #sql} and {@link #sharedSql} do
     * (each part takes the next token of its key's one counter).
     */
    public static BatchSql batchSql(JdbcDialect dialect, TableName table, int queryTimeoutSeconds,
                                    boolean serverClock) {
        return switch (dialect) {
            case POSTGRESQL -> new PostgresBatchSql(table, queryTimeoutSeconds,
                    first(serverClock, PostgresLockSql.CLOCK_MICROS), next(serverClock, "l.", PostgresLockSql.CLOCK_MICROS));
            case MYSQL -> new MySqlBatchSql(table, queryTimeoutSeconds,
                    first(serverClock, MySqlLockSql.CLOCK_MICROS), next(serverClock, "", MySqlLockSql.CLOCK_MICROS));
            case H2 -> new H2BatchSql(table, queryTimeoutSeconds,
                    first(serverClock, H2LockSql.CLOCK_MICROS), next(serverClock, "l.", H2LockSql.CLOCK_MICROS));
        };
    }

    private static String first(boolean serverClock, String clock) {
        return serverClock ? clock : "1";
    }

    private static String next(boolean serverClock, String alias, String clock) {
        return serverClock ? "GREATEST(" + alias + "fencing_token + 1, " + clock + ")" : alias + "fencing_token + 1";
    }

    /**
     * The LISTEN connection for PostgreSQL, or {@code null} when the dialect cannot push or
     * the PostgreSQL driver is not on the class path (then waiters poll, and a warning says why).
     */
    public static ReleaseListener listener(JdbcDialect dialect, DataSource dataSource, TableName table,
                                           ReleaseSignals signals, int queryTimeoutSeconds,
                                           java.time.Duration operationTimeout) {
        if (dialect != JdbcDialect.POSTGRESQL) {
            return null;
        }
        try {
            Class.forName("org.postgresql.PGConnection", false, Dialects.class.getClassLoader());
            return new PgReleaseListener(dataSource, table, signals, queryTimeoutSeconds, operationTimeout);
        } catch (ClassNotFoundException | LinkageError e) {
            log.warn("The PostgreSQL driver (org.postgresql:postgresql) is not visible to Mortise, so waiters on lock table "
                    + "'{}' poll instead of being woken by LISTEN/NOTIFY (backend 'jdbc'). Put the driver on the class path "
                    + "next to lock-jdbc, or set listenForReleases(false) to silence this.", table);
            return null;
        }
    }
}
