package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.spi.SqlDatabase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;

/** Builds the per-dialect pieces, keeping the optional PostgreSQL driver out of every other path. */
public final class Dialects {

    private static final Logger log = LoggerFactory.getLogger(Dialects.class);

    private Dialects() {
    }

    /**
     * The statements of {@code dialect} over {@code table}, every kind numbering tokens alike.
     *
     * @param serverClock   whether a new holder's token is {@code max(token + 1, database clock in µs)}
     *                      ({@link dev.mortise.lock.FencingTokens#SERVER_CLOCK}) rather than {@code token + 1}
     * @param recordWaiters whether waiting requests record themselves so releases notify them (PostgreSQL,
     *                      when this backend listens for releases; a backend that polls records nothing)
     */
    public static DialectSql statements(SqlDatabase dialect, TableName table, int queryTimeoutSeconds,
                                        boolean serverClock, boolean recordWaiters) {
        int timeout = queryTimeoutSeconds;
        return switch (dialect) {
            case POSTGRESQL -> {
                String first = first(serverClock, PostgresExpressions.CLOCK_MICROS);
                String next = next(serverClock, "l.", PostgresExpressions.CLOCK_MICROS);
                PostgresLockSql locks = new PostgresLockSql(table, timeout, first, next);
                yield new DialectSql(locks,
                        new PostgresSharedSql(table, timeout, first, next, locks.waiters(), recordWaiters),
                        new PostgresWaitSql(table, timeout, first, next, locks.waiters(), recordWaiters),
                        new PostgresPermitSql(table, timeout, first, next), new PostgresBatchSql(table, timeout, first, next),
                        new InspectSql(dialect, table, timeout));
            }
            case MYSQL -> {
                String first = first(serverClock, MySqlExpressions.NOW_US);
                String next = next(serverClock, "", MySqlExpressions.NOW_US);
                yield new DialectSql(new MySqlLockSql(table, timeout, first, next),
                        new MySqlSharedSql(table, timeout, first, next), new MySqlWaitSql(table, timeout, first, next),
                        new MySqlPermitSql(table, timeout, first, next), new MySqlBatchSql(table, timeout, first, next),
                        new InspectSql(dialect, table, timeout));
            }
            case H2 -> {
                String first = first(serverClock, H2Expressions.NOW_US);
                String next = next(serverClock, "l.", H2Expressions.NOW_US);
                yield new DialectSql(new H2LockSql(table, timeout, first, next),
                        new H2SharedSql(table, timeout, first, next), new H2WaitSql(table, timeout, first, next),
                        new H2PermitSql(table, timeout, first, next), new H2BatchSql(table, timeout, first, next),
                        new InspectSql(dialect, table, timeout));
            }
        };
    }

    /** The token of a new row. */
    private static String first(boolean serverClock, String clock) {
        return serverClock ? clock : "1";
    }

    /** The token of a new holder of row {@code alias}. */
    private static String next(boolean serverClock, String alias, String clock) {
        return serverClock ? "GREATEST(" + alias + "fencing_token + 1, " + clock + ")" : alias + "fencing_token + 1";
    }

    /**
     * The LISTEN connection for PostgreSQL, or {@code null} when the dialect cannot push or
     * the PostgreSQL driver is not on the class path (then waiters poll, and a warning says why).
     */
    public static ReleaseListener listener(SqlDatabase dialect, DataSource dataSource, TableName table,
                                           ReleaseSignals signals, int queryTimeoutSeconds,
                                           java.time.Duration operationTimeout) {
        if (dialect != SqlDatabase.POSTGRESQL) {
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
