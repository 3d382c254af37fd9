package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * What really bounds an operation: the socket read timeout of its connection, set to the
 * operation timeout for the length of one operation and restored before the connection
 * goes back. Query timeouts alone cannot do it: PostgreSQL's and MySQL's drivers enforce
 * them with a cancel request the server must answer, and while a hung server (stopped, or
 * its host gone without a TCP reset) ignores it, the PostgreSQL driver holds the
 * connection's lock for its cancel timeout (10 s by default), so the query timeout is set a
 * second longer and only acts where the server enforces it itself (MariaDB).
 */
final class NetworkTimeouts {

    /** No driver timeout to restore: the driver does not support network timeouts. */
    static final int UNSUPPORTED = -1;
    private static final Executor ABORTS = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "mortise-jdbc-network-timeout");
        thread.setDaemon(true);
        return thread;
    });

    private NetworkTimeouts() {
    }

    /** Sets the timeout and returns the one to restore, or {@link #UNSUPPORTED}. */
    static int set(Connection connection, Duration operationTimeout) throws SQLException {
        try {
            int previous = connection.getNetworkTimeout();
            connection.setNetworkTimeout(ABORTS, (int) Math.min(Integer.MAX_VALUE, Math.max(1, operationTimeout.toMillis())));
            return previous;
        } catch (SQLFeatureNotSupportedException | UnsupportedOperationException | AbstractMethodError e) {
            return UNSUPPORTED;
        }
    }

    /** Restores quietly: a connection that cannot take it back is broken, and its pool will find out. */
    static void restore(Connection connection, int previous) {
        if (previous == UNSUPPORTED) {
            return;
        }
        try {
            if (!connection.isClosed()) {
                connection.setNetworkTimeout(ABORTS, previous);
            }
        } catch (SQLException e) {
            // the operation's own outcome (or failure) is what the caller needs to see
        }
    }
}
