package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.jdbc.JdbcLockBackend;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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

    /**
     * At start-up: an unreachable database is left to health and to the calls (they fail
     * fast). A pool waiting for a connection to a database that is down (HikariCP waits its
     * connection-timeout, 30 s by default) is waited for {@code within} at most, so start-up
     * is not held up by it; the connection, if it comes later, is closed unused.
     */
    void checkIfReachable(Duration within) {
        CompletableFuture<Connection> connecting = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                connecting.complete(dataSource.getConnection());
            } catch (Throwable e) {
                connecting.completeExceptionally(e);
            }
        }, "mortise-jdbc-table-check");
        thread.setDaemon(true);
        thread.start();
        Connection connection;
        try {
            connection = connecting.get(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            connecting.thenAccept(JdbcLockTable::closeQuietly);
            return;
        } catch (ExecutionException e) {
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connecting.thenAccept(JdbcLockTable::closeQuietly);
            return;
        }
        checkOn(connection);
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // a connection nobody used: nothing to lose
        }
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
