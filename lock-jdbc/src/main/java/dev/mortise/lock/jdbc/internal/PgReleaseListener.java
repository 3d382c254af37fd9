package dev.mortise.lock.jdbc.internal;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one connection per backend that LISTENs for releases on PostgreSQL, on a daemon
 * thread of its own, handing each notification to {@link ReleaseSignals}. If the connection
 * drops it reconnects with backoff, and wakes every waiter after reconnecting (releases
 * in between were not heard); while it is down, waiters fall back to polling. Silence is
 * checked with a {@code SELECT 1} now and then, so a dead peer is noticed.
 *
 * <p>The only class that touches the PostgreSQL driver: loaded only for that dialect.
 */
final class PgReleaseListener implements ReleaseListener, Runnable {

    private static final Logger log = LoggerFactory.getLogger(PgReleaseListener.class);
    private static final int POLL_MILLIS = 250;
    private static final long HEARTBEAT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long MAX_BACKOFF_MILLIS = 5000;

    private final DataSource dataSource;
    private final TableName table;
    private final ReleaseSignals signals;
    private final int queryTimeoutSeconds;
    private final Duration operationTimeout;
    /** A lock, not a monitor: a virtual thread taking it does not pin its carrier on JDK 21-23. */
    private final ReentrantLock state = new ReentrantLock();
    /** Counted down when the listener thread ends (what close waits for; no Thread.join, which pins too). */
    private final CountDownLatch stopped = new CountDownLatch(1);
    private boolean listening; // guarded by state
    /** Complete while listening and once closed; replaced by a new one when LISTEN goes down. Guarded by state. */
    private CompletableFuture<Void> up = new CompletableFuture<>();
    private volatile boolean closed;
    private Thread thread;

    PgReleaseListener(DataSource dataSource, TableName table, ReleaseSignals signals, int queryTimeoutSeconds,
                      Duration operationTimeout) {
        this.dataSource = dataSource;
        this.table = table;
        this.signals = signals;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        this.operationTimeout = operationTimeout;
    }

    @Override
    public void start() {
        state.lock();
        try {
            if (!closed && thread == null) {
                thread = new Thread(this, "mortise-jdbc-listen-" + table.channel());
                thread.setDaemon(true);
                thread.start();
            }
        } finally {
            state.unlock();
        }
    }

    @Override
    public CompletableFuture<Void> listening() {
        state.lock();
        try {
            return up;
        } finally {
            state.unlock();
        }
    }

    @Override
    public boolean isListening() {
        state.lock();
        try {
            return listening;
        } finally {
            state.unlock();
        }
    }

    @Override
    public void run() {
        try {
            listenUntilClosed();
        } finally {
            stopped.countDown();
        }
    }

    private void listenUntilClosed() {
        long backoff = 100;
        while (!closed) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(true);
                // A hung server must not hang the heartbeat: reads fail after the operation timeout.
                NetworkTimeouts.set(connection, operationTimeout);
                try (Statement statement = connection.createStatement()) {
                    statement.setQueryTimeout(queryTimeoutSeconds);
                    statement.execute("LISTEN \"" + table.channel() + "\"");
                }
                PGConnection pg = connection.unwrap(PGConnection.class);
                setListening(true);
                signals.fireAll();
                backoff = 100;
                listen(connection, pg);
            } catch (SQLException | RuntimeException e) {
                if (!closed) {
                    log.warn("LISTEN connection for lock table '{}' failed (backend 'jdbc'); waiters poll until it is back, "
                            + "retrying in {} ms: {}", table, backoff, e.toString());
                }
            } finally {
                setListening(false);
            }
            sleepQuietly(backoff);
            backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
        }
    }

    private void listen(Connection connection, PGConnection pg) throws SQLException {
        long lastHeard = System.nanoTime();
        while (!closed) {
            PGNotification[] notifications = pg.getNotifications(POLL_MILLIS);
            if (notifications != null && notifications.length > 0) {
                for (PGNotification notification : notifications) {
                    signals.fire(notification.getParameter());
                }
                lastHeard = System.nanoTime();
            } else if (System.nanoTime() - lastHeard > HEARTBEAT_NANOS) {
                try (Statement statement = connection.createStatement()) {
                    statement.setQueryTimeout(queryTimeoutSeconds);
                    statement.execute("SELECT 1");
                }
                lastHeard = System.nanoTime();
            }
        }
    }

    private void setListening(boolean value) {
        state.lock();
        try {
            listening = value;
            if (value) {
                // under the lock, so never left complete while down (it only schedules a step or unparks)
                up.complete(null);
            } else if (up.isDone() && !closed) {
                up = new CompletableFuture<>();
            }
        } finally {
            state.unlock();
        }
    }

    private void sleepQuietly(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!closed && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(Math.min(50, millis));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        Thread running;
        state.lock();
        try {
            closed = true;
            running = thread;
            up.complete(null); // waiters for LISTEN go on polling
        } finally {
            state.unlock();
        }
        if (running != null) {
            try {
                stopped.await(TimeUnit.SECONDS.toMillis(2) + POLL_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
