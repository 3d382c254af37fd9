package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.Grant;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Ends leases on the server once the core has given them up. Explicit (non-renewed)
 * leases: ZooKeeper has no per-node time limit a client can rely on, so the holder's own
 * backend deletes its node when the lease runs out — after the core has already stopped
 * treating it as valid (local validity ends a drift allowance earlier). Renewed leases
 * whose renewals failed for longer than the lease: a periodic sweep deletes their nodes
 * ({@link SessionGuard#sweepUnconfirmed}). If the holder's process dies first, the
 * session's end removes the node instead.
 */
public final class LeaseExpiry {

    /** How often renewed holds are checked for a lease that ran out unconfirmed. */
    private static final long SWEEP_MILLIS = 500;

    private final ZkOps ops;
    private final SessionGuard guard;
    private final Map<String, ScheduledFuture<?>> timers = new ConcurrentHashMap<>();
    /** Explicit leases that ran out: their nodes are being deleted, so they can no longer be extended. */
    private final Set<String> ended = ConcurrentHashMap.newKeySet();
    private final ScheduledThreadPoolExecutor scheduler;

    public LeaseExpiry(ZkOps ops, SessionGuard guard) {
        this.ops = ops;
        this.guard = guard;
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "mortise-zookeeper-lease-expiry");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.scheduleWithFixedDelay(guard::sweepUnconfirmed, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Deletes the grant's node {@code lease} after the grant's request was sent. */
    public void schedule(Grant grant, Duration lease) {
        scheduleFrom(grant, lease, grant.requestedAtNanos(), null);
    }

    private void scheduleFrom(Grant grant, Duration lease, long fromNanos, String marker) {
        NodeRef node = grant.state();
        long delay = fromNanos + lease.toNanos() - System.nanoTime();
        timers.put(node.path(), scheduler.schedule(() -> {
            ended.add(node.path());
            timers.remove(node.path());
            guard.remove(grant);
            ops.deletes().deleteLater(node.path());
            if (marker != null) {
                ops.deletes().deleteLater(marker);
            }
        }, Math.max(0, delay), TimeUnit.NANOSECONDS));
    }

    /**
     * Moves the end of an explicit lease to {@code lease} after {@code fromNanos} (a lock
     * service's renew). Renewed holds have no end here and are left alone.
     *
     * @return false if the explicit lease has already ended (its node is being deleted)
     */
    public synchronized boolean extend(Grant grant, Duration lease, long fromNanos) {
        String path = grant.<NodeRef>state().path();
        if (ended.contains(path)) {
            return false;
        }
        ScheduledFuture<?> timer = timers.get(path);
        if (timer == null) {
            return true;
        }
        if (!timer.cancel(false)) {
            return false; // the deletion is already running
        }
        scheduleFrom(grant, lease, fromNanos, null);
        return true;
    }

    /**
     * Ends the hold {@code linger} after {@code fromNanos}, renewed or not: its node and its
     * lingering marker ({@link LingerMarkers}, or null) are deleted then while this client
     * lives (a closed session deletes the node at once; the marker then holds the key until
     * it expires, and the next acquirer deletes it).
     *
     * @return false if the hold has already ended (its node is being deleted)
     */
    public synchronized boolean endAfter(Grant grant, Duration linger, long fromNanos, String marker) {
        String path = grant.<NodeRef>state().path();
        if (ended.contains(path)) {
            return false;
        }
        ScheduledFuture<?> timer = timers.get(path);
        if (timer != null && !timer.cancel(false)) {
            return false; // the deletion is already running
        }
        scheduleFrom(grant, linger, fromNanos, marker);
        return true;
    }

    /** Called on release: the node is deleted by the caller. */
    public void cancel(Grant grant) {
        ended.remove(grant.<NodeRef>state().path());
        ScheduledFuture<?> timer = timers.remove(grant.<NodeRef>state().path());
        if (timer != null) {
            timer.cancel(false);
        }
    }

    public void shutdown() {
        scheduler.shutdownNow();
        timers.clear();
    }
}
