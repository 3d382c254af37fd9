package dev.mortise.lock.jdbc.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Cleans up after acquires whose answer never arrived. A statement that timed out or lost
 * its connection may still have committed on the server, leaving a row held by an owner
 * nobody will ever renew or release, which would block the key until its lease ran out.
 * This releases such rows in the background, owner-checked (the owner is unique to the
 * failed request, so nothing else can be touched), retrying with backoff until it succeeds
 * or the lease has run out anyway.
 */
public final class UnconfirmedGrants implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(UnconfirmedGrants.class);
    private static final long FIRST_RETRY_MILLIS = 250;
    private static final long MAX_RETRY_MILLIS = 5000;

    private final LockSql sql;
    private final JdbcCalls calls;
    private ScheduledExecutorService scheduler; // guarded by this
    private boolean closed; // guarded by this

    public UnconfirmedGrants(LockSql sql, JdbcCalls calls) {
        this.sql = sql;
        this.calls = calls;
    }

    /** Releases {@code key} if {@code owner} holds it, soon and in the background. */
    public void release(String userKey, String key, String owner, long leaseMillis) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        schedule(userKey, key, owner, until, 0);
    }

    private void attempt(String userKey, String key, String owner, long until, long delay) {
        try {
            if (calls.run(userKey, "release an unconfirmed grant of", c -> sql.release(c, key, owner))) {
                log.info("Released lock '{}' that an acquire which failed had taken on the server after all "
                        + "(backend 'jdbc')", userKey);
            }
        } catch (RuntimeException e) {
            long next = Math.min(MAX_RETRY_MILLIS, Math.max(FIRST_RETRY_MILLIS, delay * 2));
            if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(next) - until < 0) {
                schedule(userKey, key, owner, until, next);
            }
        }
    }

    private synchronized void schedule(String userKey, String key, String owner, long until, long delay) {
        if (closed) {
            return;
        }
        if (scheduler == null) {
            scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "mortise-jdbc-unconfirmed");
                thread.setDaemon(true);
                return thread;
            });
        }
        scheduler.schedule(() -> attempt(userKey, key, owner, until, delay), delay, TimeUnit.MILLISECONDS);
    }

    /** Drops pending clean-ups: their rows expire with their leases. */
    @Override
    public synchronized void close() {
        closed = true;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
