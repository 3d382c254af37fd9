package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.LockBackendException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs each lock operation on a connection of its own in autocommit mode, so it never
 * joins, commits or rolls back a transaction of the caller's; a pooled connection that was
 * handed out with autocommit off gets it back off. Turns every failure into a
 * {@link LockBackendException} that names the key, the backend and a fix.
 */
public final class JdbcCalls {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JdbcCalls.class);

    /** One piece of work on a borrowed autocommit connection. */
    @FunctionalInterface
    public interface Work<T> {
        T apply(Connection connection) throws SQLException;
    }

    private final DataSource dataSource;
    private final TableName table;
    private final Duration operationTimeout;
    /** Set-up still owed to the database (a lock table it could not create at build), else null. */
    private volatile Work<?> setUp;
    private final ReentrantLock setUpLock = new ReentrantLock();
    /** Creates the lock table again when a statement finds it gone, or null if the backend may not create it. */
    private volatile Work<?> recreate;

    public JdbcCalls(DataSource dataSource, TableName table, Duration operationTimeout) {
        this.dataSource = dataSource;
        this.table = table;
        this.operationTimeout = operationTimeout;
    }

    /**
     * Has {@code setUp} run once, on the first connection any later operation gets, before
     * that operation's own work: for what the database was down for at build time. A failed
     * set-up fails that operation and is tried again by the next.
     */
    public void setUpOnFirstUse(Work<?> setUp) {
        this.setUp = setUp;
    }

    /**
     * Has {@code create} run (then the operation once more) when a statement finds the lock table
     * missing: a database that is not durable can restart without it (PostgreSQL with fsync off,
     * killed, loses recent DDL with the rows), and a backend allowed to create its table should not
     * fail every call from then on. The statement that found it missing had no effect, so running
     * it again is safe for every operation, release included (it then finds no hold).
     */
    public void recreateTableWhenMissing(Work<?> create) {
        this.recreate = create;
    }

    /** Whether {@code e} says the table (or view) the statement names does not exist. */
    static boolean missingTable(SQLException e) {
        String state = e.getSQLState();
        // PostgreSQL undefined_table; MySQL/MariaDB ER_NO_SUCH_TABLE and H2 table not found (42S02),
        // H2's variants with candidates / an empty schema (42S03, 42S04).
        return "42P01".equals(state) || "42S02".equals(state) || "42S03".equals(state) || "42S04".equals(state);
    }

    /**
     * Whether {@code e} says the database could not be reached or did not answer (a refused
     * or broken connection, a timeout), rather than that it refused the statement.
     */
    public static boolean unreachable(Throwable e) {
        if (e instanceof java.sql.SQLNonTransientConnectionException || e instanceof java.sql.SQLTransientConnectionException
                || e instanceof SQLTimeoutException) {
            return true;
        }
        return e instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08");
    }

    /**
     * Runs {@code work} on its own autocommit connection. A statement the database rolled
     * back as a deadlock or serialization victim (SQLState class 40: InnoDB can pick one
     * when upserts of one new key meet) had no effect, so it is run again, twice at most.
     */
    public <T> T run(String key, String action, Work<T> work) {
        return run(key, action, false, work);
    }

    /**
     * As {@link #run}, and also once more on a fresh connection when the first one turns out
     * broken (SQLState class 08: a pooled connection the server had already closed). Only
     * for work that is idempotent for its owner — acquire, renew, ping — never for release,
     * whose repeat would report a hold it had just released as missing. The first send may
     * have committed: a resent acquire must answer only what the resend itself decided (the
     * first send's entry in the row is not a grant) and its grant counts from the first send
     * (see {@code hold.Admission} and docs/jdbc.md, "Resends").
     */
    public <T> T runIdempotent(String key, String action, Work<T> work) {
        return run(key, action, true, work);
    }

    private <T> T run(String key, String action, boolean idempotent, Work<T> work) {
        boolean retriedConnection = false;
        boolean recreated = false;
        for (int attempt = 1; ; attempt++) {
            try {
                return once(work);
            } catch (SQLException e) {
                String state = e.getSQLState();
                if (attempt < 3 && state != null && state.startsWith("40")) {
                    continue;
                }
                if (idempotent && !retriedConnection && state != null && state.startsWith("08")) {
                    retriedConnection = true;
                    continue;
                }
                Work<?> create = recreate;
                if (create != null && !recreated && missingTable(e)) {
                    recreated = true;
                    recreateTable(key, action, create, e);
                    continue;
                }
                throw failure(key, action, e);
            }
        }
    }

    private <T> T once(Work<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            boolean restore = !connection.getAutoCommit();
            if (restore) {
                connection.setAutoCommit(true);
            }
            int networkTimeout = NetworkTimeouts.set(connection, operationTimeout);
            try {
                Work<?> pending = setUp;
                if (pending != null) {
                    setUp(pending, connection);
                }
                return work.apply(connection);
            } finally {
                NetworkTimeouts.restore(connection, networkTimeout);
                if (restore) {
                    connection.setAutoCommit(false);
                }
            }
        }
    }

    private void recreateTable(String key, String action, Work<?> create, SQLException missing) {
        LOG.warn("JDBC backend ('jdbc'): lock table '{}' is missing (the database lost it, or it was dropped) while "
                + "trying to {} lock '{}' [SQLState {}]; creating it again (createTableIfMissing is on). Holds kept in "
                + "the old table are gone.", table, action, abbreviate(key == null ? "" : key), missing.getSQLState());
        try {
            once(create);
        } catch (SQLException e) {
            // Two backends may create it at once; the one that loses sees "already exists", and
            // the operation's own retry then tells whether the table is there.
            LOG.debug("creating lock table '{}' again failed: {}", table, e.getMessage());
        }
    }

    /** Runs the owed set-up once; under a lock, not a monitor: it is a round trip, a virtual caller must not pin. */
    private void setUp(Work<?> pending, Connection connection) throws SQLException {
        setUpLock.lock();
        try {
            if (setUp == pending) {
                pending.apply(connection);
                setUp = null;
            }
        } finally {
            setUpLock.unlock();
        }
    }

    private LockBackendException failure(String key, String action, SQLException e) {
        String what = key == null ? "" : " lock '" + abbreviate(key) + "'";
        String fix = e instanceof SQLTimeoutException || e instanceof java.sql.SQLTransientConnectionException
                ? "The database did not answer within the operation timeout (" + operationTimeout + ") or no pooled "
                  + "connection was free: check that it is up and the pool is large enough (each backend also holds one "
                  + "connection for LISTEN on PostgreSQL)."
                : "Check that the database is reachable and that table '" + table + "' exists with the shipped DDL "
                  + "(JdbcLockBackend.builder(dataSource).createTableIfMissing(true) creates it).";
        return new LockBackendException("JDBC backend ('jdbc') could not " + action + what + ": " + e.getMessage()
                + " [SQLState " + e.getSQLState() + "]. " + fix, key, "jdbc", e);
    }

    static String abbreviate(String key) {
        return key.length() <= 200 ? key : key.substring(0, 200) + "…";
    }
}
