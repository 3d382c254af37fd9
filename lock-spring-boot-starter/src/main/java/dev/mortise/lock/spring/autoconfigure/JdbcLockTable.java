package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.jdbc.JdbcLockBackend;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Whether the JDBC backend's lock table exists: at start-up (a missing table fails it,
 * unless {@code create-table} is set, rather than the first lock call an hour later with a
 * page of SQL) and in health. A database that cannot be reached is not this check's
 * concern: the backend reports that itself.
 */
final class JdbcLockTable implements LockBackendCheck {

    private final String backend;
    private final DataSource dataSource;
    private final JdbcLockBackend lockBackend;
    private final String prefix;

    /** @param prefix where the backend's properties live ({@code mortise.lock.jdbc}), for messages */
    JdbcLockTable(String backend, DataSource dataSource, JdbcLockBackend lockBackend, String prefix) {
        this.backend = backend;
        this.dataSource = dataSource;
        this.lockBackend = lockBackend;
        this.prefix = prefix;
    }

    @Override
    public String backend() {
        return backend;
    }

    /** @throws IllegalStateException if the table is missing (or unreadable), naming the fix */
    @Override
    public void check() {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot reach the database of lock backend '" + backend + "': "
                    + e.getMessage(), e);
        }
        checkOn(connection);
    }

    /** At start-up: an unreachable database is left to health and to the calls (they fail fast). */
    void checkIfReachable() {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            return;
        }
        checkOn(connection);
    }

    private void checkOn(Connection connection) {
        String table = lockBackend.tableName();
        try (connection; Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(5);
            statement.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
        } catch (SQLException e) {
            throw new IllegalStateException("The lock table " + table + " of lock backend '" + backend
                    + "' cannot be read (" + e.getMessage() + "): create it with the schema-<dialect>.sql of "
                    + "lock-jdbc in your migrations, or set " + prefix + ".create-table=true to create it at "
                    + "start-up" + (table.equals("mortise_locks") ? "" : ", or fix " + prefix + ".table-name")
                    + ".", e);
        }
    }
}
