package dev.mortise.lock.jdbc;

import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.jdbc.internal.JdbcCalls;
import dev.mortise.lock.jdbc.internal.Schema;
import dev.mortise.lock.jdbc.internal.StoredKey;
import dev.mortise.lock.jdbc.internal.TableName;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Objects;

/**
 * Configures a {@link JdbcLockBackend}. Every setter validates its argument and throws
 * {@link IllegalArgumentException} naming the setting and the accepted range. Not
 * thread-safe; {@link #build()} may be called more than once.
 *
 * <pre>{@code
 * JdbcLockBackend backend = JdbcLockBackend.builder(dataSource)
 *         .tableName("mortise_locks")          // default
 *         .createTableIfMissing(true)          // default false: ship the DDL with your migrations
 *         .operationTimeout(Duration.ofSeconds(5))
 *         .build();
 * }</pre>
 */
public final class JdbcLockBackendBuilder {

    /** The default table name. */
    public static final String DEFAULT_TABLE = "mortise_locks";
    /** The key column of the shipped DDL, in UTF-8 bytes. */
    public static final int DEFAULT_KEY_COLUMN_BYTES = 255;

    final DataSource dataSource;
    JdbcDialect dialect;
    TableName table = TableName.of(DEFAULT_TABLE);
    boolean createTable;
    Duration operationTimeout = Duration.ofSeconds(5);
    Duration pushedPollInterval = Duration.ofSeconds(5);
    boolean listen = true;
    int keyColumnBytes = DEFAULT_KEY_COLUMN_BYTES;
    FencingTokens fencingTokens = FencingTokens.SERVER_CLOCK;

    JdbcLockBackendBuilder(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null (backend 'jdbc'): pass the application's "
                    + "DataSource, not a transaction-aware proxy");
        }
        this.dataSource = dataSource;
    }

    /**
     * The SQL dialect; by default detected from the database's product name at {@link #build()},
     * which then needs the database. Set it (for instance from the JDBC URL with
     * {@link JdbcDialect#forJdbcUrl}) to build while the database is down.
     */
    public JdbcLockBackendBuilder dialect(JdbcDialect dialect) {
        this.dialect = Objects.requireNonNull(dialect, "dialect (backend 'jdbc'): omit the call to detect it");
        return this;
    }

    /**
     * The lock table, default {@value #DEFAULT_TABLE}: a plain identifier, optionally
     * {@code schema.table}, checked here because it is the one thing written into SQL text.
     */
    public JdbcLockBackendBuilder tableName(String tableName) {
        this.table = TableName.of(tableName);
        return this;
    }

    /**
     * Whether {@link #build()} runs the dialect's shipped {@code CREATE TABLE IF NOT EXISTS}, for the
     * lock table and the table of wait records beside it ({@link JdbcLockBackend#waitTableName()});
     * default false. If the database cannot be reached then, the backend is built anyway and
     * the first operation that reaches the database creates the table before its own work.
     */
    public JdbcLockBackendBuilder createTableIfMissing(boolean create) {
        this.createTable = create;
        return this;
    }

    /**
     * The longest one operation may wait for the database; default 5 s. Set on each
     * operation's connection as its network (socket read) timeout, with the statements'
     * query timeouts a second longer as a server-side backstop. The data source must bound
     * its own waits by it too — the pool's connection timeout and the driver's connect
     * timeout — so a down database or a drained pool fails within it.
     */
    public JdbcLockBackendBuilder operationTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("operationTimeout must be positive and at most a day (backend 'jdbc'), was "
                    + timeout);
        }
        this.operationTimeout = timeout;
        return this;
    }

    /**
     * On PostgreSQL, how long a waiter sleeps between attempts when no notification comes
     * (a holder that expires instead of releasing is still noticed at once, because sleeps
     * never outlast the holder's lease); default 5 s. Other dialects poll with backoff.
     */
    public JdbcLockBackendBuilder pushedPollInterval(Duration interval) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("pushedPollInterval must be positive (backend 'jdbc'), was " + interval);
        }
        this.pushedPollInterval = interval;
        return this;
    }

    /**
     * Whether waiters on PostgreSQL are woken by {@code LISTEN/NOTIFY} (default true). From
     * the first wait until the backend is closed, it holds one connection of the data source.
     * With {@code false} this backend's waiters poll and record no interest in the row, so the
     * releases they wait for send no {@code NOTIFY} (unless a listening backend waits too).
     */
    public JdbcLockBackendBuilder listenForReleases(boolean listen) {
        this.listen = listen;
        return this;
    }

    /**
     * The size of the key column in UTF-8 bytes, default {@value #DEFAULT_KEY_COLUMN_BYTES}
     * as in the shipped DDL. Keys this long or longer are stored hashed, with the original
     * kept in {@code original_key}.
     */
    public JdbcLockBackendBuilder keyColumnBytes(int bytes) {
        if (bytes < StoredKey.MIN_COLUMN_BYTES || bytes > 3072) {
            throw new IllegalArgumentException("keyColumnBytes must be between " + StoredKey.MIN_COLUMN_BYTES
                    + " and 3072 (backend 'jdbc'), was " + bytes);
        }
        this.keyColumnBytes = bytes;
        return this;
    }

    /**
     * How fencing tokens are numbered; default {@link FencingTokens#SERVER_CLOCK}, tokens that
     * keep increasing when the database loses the row or its latest writes (a crash with
     * durability settings off, a failover to a lagging replica, a truncated table).
     * {@link FencingTokens#COUNTER} gives 1, 2, 3… but repeats tokens after such a loss.
     * Backends sharing a table should use the same scheme; switching from the clock to the
     * counter keeps tokens increasing (the counter continues from the large value in the row).
     */
    public JdbcLockBackendBuilder fencingTokens(FencingTokens scheme) {
        this.fencingTokens = Objects.requireNonNull(scheme, "fencingTokens must not be null (backend 'jdbc'): omit "
                + "the call for the default SERVER_CLOCK");
        return this;
    }

    /**
     * Detects the dialect if none was set and creates the table if asked: both talk to the
     * database once. Otherwise nothing is sent until the first lock operation. With the
     * dialect set, a database that is down does not fail the build: the table (if asked for)
     * is created by the first operation that reaches it.
     *
     * @throws dev.mortise.lock.LockBackendException if the database cannot be reached to detect the dialect, or
     *                                                refuses to create the table
     * @throws IllegalStateException                  if the database is none of the supported ones
     */
    public JdbcLockBackend build() {
        JdbcCalls calls = new JdbcCalls(dataSource, table, operationTimeout);
        JdbcDialect chosen = dialect != null ? dialect : calls.run(null, "detect the SQL dialect of the database", c -> {
            String product = c.getMetaData().getDatabaseProductName();
            return JdbcDialect.forProductName(product).orElseThrow(() -> new IllegalStateException(
                    "Database '" + product + "' is not one the JDBC lock backend ('jdbc') knows. Set "
                            + "JdbcLockBackend.builder(dataSource).dialect(JdbcDialect.…) if it speaks PostgreSQL, "
                            + "MySQL or H2 SQL."));
        });
        boolean tableOwed = false;
        if (createTable) {
            try {
                calls.run(null, "create lock table '" + table + "'", c -> {
                    Schema.createIfMissing(c, chosen.database(), table, JdbcLockBackend.seconds(operationTimeout));
                    return null;
                });
            } catch (dev.mortise.lock.LockBackendException e) {
                if (!JdbcCalls.unreachable(e.getCause())) {
                    throw e;
                }
                // The database is down: the application may still start; the first operation that reaches it creates the table.
                tableOwed = true;
            }
        }
        return new JdbcLockBackend(this, chosen, tableOwed);
    }
}
