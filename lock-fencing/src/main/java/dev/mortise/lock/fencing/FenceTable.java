package dev.mortise.lock.fencing;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a {@link JdbcFenceGuard} needs from its database before the first check: the dialect
 * (unless it was set) and, if asked, the fence table. Done at {@code build()} by default;
 * with {@link JdbcFenceGuard.Builder#prepareLazily(boolean)} at the first check instead, so a
 * guard can be built (an application can start) while the database is down. A lazy
 * preparation that fails is tried again at the next check. Thread-safe.
 */
final class FenceTable {

    /** The dialect and the statement speaking it, once known. */
    record Prepared(FenceDialect dialect, FenceStatement statement) {
    }

    private final DataSource dataSource;
    private final String table;
    private final FenceDialect configured;
    private final boolean createTable;
    private final int queryTimeoutSeconds;
    private volatile Prepared prepared;
    private final ReentrantLock preparing = new ReentrantLock();

    FenceTable(DataSource dataSource, String table, FenceDialect configured, boolean createTable,
               int queryTimeoutSeconds) {
        this.dataSource = dataSource;
        this.table = table;
        this.configured = configured;
        this.createTable = createTable;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        if (configured != null && !createTable) {
            prepared = prepared(configured);
        }
    }

    /** The dialect if known yet: the configured one, else the one read from the database. */
    FenceDialect dialect() {
        Prepared done = prepared;
        return done != null ? done.dialect() : configured;
    }

    /**
     * Prepares now, on a connection of its own (the eager {@code build()}).
     *
     * @throws IllegalStateException if the database is not one of {@link FenceDialect}, or could not be reached
     */
    void prepareNow() {
        if (prepared != null) {
            return;
        }
        FenceDialect resolved = configured;
        try (Connection connection = dataSource.getConnection()) {
            if (resolved == null) {
                resolved = dialectOf(connection);
            }
            if (createTable) {
                create(connection, resolved);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not prepare fence table " + table + " (jdbc-fence): "
                    + e.getMessage() + ". Check the DataSource, or create the table yourself ("
                    + (resolved == null ? "DDL per dialect in dev/mortise/lock/fencing/fences-*.sql"
                    : resolved.schemaResource()) + ") and set the dialect, so that nothing is asked of the "
                    + "database before the first check.", e);
        }
        prepared = prepared(resolved);
    }

    /**
     * Prepares before a check on {@code connection} if not done yet: the dialect from that
     * connection, the table (if asked) on a connection of its own, committed.
     *
     * @throws FenceCheckException if the database could not be asked or the table not created,
     *                             naming the table, the database and the fix
     */
    Prepared before(Connection connection, String resource) {
        Prepared done = prepared;
        if (done != null) {
            return done;
        }
        // A lock, not a monitor: preparing is a round trip, and a virtual caller must not pin its carrier.
        preparing.lock();
        try {
            if (prepared == null) {
                FenceDialect resolved = configured != null ? configured : dialectBefore(connection, resource);
                if (createTable) {
                    createBefore(connection, resource, resolved);
                }
                prepared = prepared(resolved);
            }
            return prepared;
        } finally {
            preparing.unlock();
        }
    }

    private FenceDialect dialectBefore(Connection connection, String resource) {
        try {
            return dialectOf(connection);
        } catch (SQLException e) {
            throw new FenceCheckException("Could not read which database holds fence table " + table + " (jdbc-fence) "
                    + "before the check of resource '" + Resources.abbreviate(resource) + "': " + e.getMessage()
                    + ". Roll back the transaction; set the guard's dialect so that it is not asked.", resource,
                    JdbcFenceGuard.NAME, e);
        }
    }

    private void createBefore(Connection checking, String resource, FenceDialect dialect) {
        try (Connection own = dataSource.getConnection()) {
            create(own, dialect);
        } catch (SQLException e) {
            throw new FenceCheckException("Could not create fence table " + table + " in database "
                    + database(checking) + " (" + dialect + ", jdbc-fence) before the check of resource '"
                    + Resources.abbreviate(resource) + "': " + e.getMessage() + ". The check is refused (roll back "
                    + "the transaction) and the table is tried again at the next check. Create the table with your "
                    + "schema tool (DDL: " + dialect.schemaResource() + "), or let the DataSource's user create "
                    + "tables.", resource, JdbcFenceGuard.NAME, e);
        }
    }

    private static String database(Connection connection) {
        try {
            return connection.getMetaData().getURL();
        } catch (SQLException | RuntimeException e) {
            return "(its URL could not be read: " + e.getMessage() + ")";
        }
    }

    private Prepared prepared(FenceDialect dialect) {
        return new Prepared(dialect, FenceStatement.of(dialect, table, queryTimeoutSeconds));
    }

    private static FenceDialect dialectOf(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        return FenceDialect.forProductName(product).orElseThrow(() -> new IllegalStateException(
                "The fence guard does not know database '" + product + "' (jdbc-fence): it speaks "
                        + "PostgreSQL, MySQL/MariaDB and H2; set dialect(..) if yours is compatible."));
    }

    /**
     * Two applications starting at once may both create the table; PostgreSQL can then fail one
     * of them even with {@code IF NOT EXISTS}, so a failure is ignored when the table is there afterwards.
     */
    private void create(Connection connection, FenceDialect dialect) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(true);
        try (Statement create = connection.createStatement()) {
            create.execute(dialect.ddl(table));
        } catch (SQLException e) {
            try (Statement probe = connection.createStatement()) {
                probe.executeQuery("SELECT token FROM " + table + " WHERE 1 = 0").close();
            } catch (SQLException missing) {
                e.addSuppressed(missing);
                throw e;
            }
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
