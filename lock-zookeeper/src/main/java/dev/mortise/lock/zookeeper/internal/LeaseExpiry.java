package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.spi.Grant;

import java.time.Duration;
import java.util.Map;
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
        NodeRef node = grant.state();
        long delay = grant.requestedAtNanos() + lease.toNanos() - System.nanoTime();
        timers.put(node.path(), scheduler.schedule(() -> {
            timers.remove(node.path());
            guard.remove(grant);
            ops.deleteLater(node.path());
        }, Math.max(0, delay), TimeUnit.NANOSECONDS));
    }

    /** Called on release: the node is deleted by the caller. */
    public void cancel(Grant grant) {
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
