package dev.mortise.lock.jdbc.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Cleans up after acquires whose answer never arrived. A statement that timed out or lost
 * its connection may still be running on the server (waiting for a row lock, say) and commit
 * a grant <em>after</em> any clean-up sent now, leaving a row held by an owner nobody will
 * ever renew or release, which would block the key until its lease ran out.
 *
 * <p>So a clean-up is not done when its release finds nothing: it releases owner-checked (the
 * owner is unique to the failed request, so nothing else can be touched) in the background,
 * again and again with backoff (250 ms doubling to 5 s), until a release confirms it freed the
 * row, or until the lease has certainly run out. Every dialect stamps expiry from the
 * database's clock when the statement starts (PostgreSQL and H2: the transaction's start,
 * MySQL/MariaDB: the statement's), so a late grant's row expires a lease after the statement
 * reached the server, however late it commits; the clean-up stops at {@code requestedAt + lease
 * + 2 × operation timeout} (the statement's way to the server fits in the slack). A release
 * that fails is retried the same way. Nothing here runs on the caller's thread.
 */
public final class UnconfirmedGrants implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(UnconfirmedGrants.class);
    private static final long FIRST_RETRY_MILLIS = 250;
    private static final long MAX_RETRY_MILLIS = 5000;

    private final LockSql sql;
    private final SharedSql shared;
    private final JdbcCalls calls;
    private final long slackNanos;
    private ScheduledExecutorService scheduler; // guarded by this
    private boolean closed; // guarded by this

    public UnconfirmedGrants(LockSql sql, SharedSql shared, JdbcCalls calls, Duration operationTimeout) {
        this.sql = sql;
        this.shared = shared;
        this.calls = calls;
        this.slackNanos = operationTimeout.multipliedBy(2).toNanos();
    }

    /**
     * Releases {@code key} if {@code owner} holds it, soon and in the background, and keeps
     * trying until a release confirms it or the lease has certainly run out.
     *
     * @param requestedAt {@link System#nanoTime()} just before the acquire was sent
     * @param isShared    whether the acquire asked for a shared hold (its release removes a reader entry)
     */
    public void release(String userKey, String key, String owner, long requestedAt, long leaseMillis,
                        boolean isShared) {
        long until = requestedAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis) + slackNanos;
        schedule(userKey, key, owner, isShared, until, 0);
    }

    private void attempt(String userKey, String key, String owner, boolean isShared, long until, long delay) {
        long next = Math.min(MAX_RETRY_MILLIS, Math.max(FIRST_RETRY_MILLIS, delay * 2));
        try {
            if (calls.run(userKey, "release an unconfirmed grant of", c -> isShared ? shared.releaseShared(c, key, owner)
                    : sql.release(c, key, owner))) {
                log.info("Released lock '{}' that an acquire which failed had taken on the server after all "
                        + "(backend 'jdbc')", userKey);
                return;
            }
            // Nothing to release yet: the grant may still commit (its statement may be waiting on the server).
        } catch (RuntimeException e) {
            // Not confirmed either way: try again.
        }
        long left = until - System.nanoTime();
        if (left > 0) {
            // The last try lands at the deadline rather than past it.
            schedule(userKey, key, owner, isShared, until,
                    Math.min(next, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
        }
    }

    private synchronized void schedule(String userKey, String key, String owner, boolean isShared, long until,
                                       long delay) {
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
        scheduler.schedule(() -> attempt(userKey, key, owner, isShared, until, delay), delay, TimeUnit.MILLISECONDS);
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
