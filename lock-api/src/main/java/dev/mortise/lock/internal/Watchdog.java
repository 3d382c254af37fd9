package dev.mortise.lock.internal;

import dev.mortise.lock.LockEvent;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Renews every renewed hold of a client every third of the default lease, in one
 * {@link LockBackend#renewAll} call per tick, on one daemon thread; and runs the one-shot
 * expiry checks that turn an unrenewed lease into a loss at its deadline. Ticks run at a
 * fixed rate, so a slow renewal does not stretch the period the leases count on. The holds
 * to renew are read from the client's key table; the watchdog keeps no registry of its own.
 */
final class Watchdog {

    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

    private final DefaultLockClient client;
    private final LockBackend backend;
    private final Duration lease;
    private final KeyGates keys;
    private final ScheduledThreadPoolExecutor scheduler;

    Watchdog(DefaultLockClient client, LockBackend backend, Duration lease, KeyGates keys) {
        this.client = client;
        this.backend = backend;
        this.lease = lease;
        this.keys = keys;
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "mortise-watchdog-" + backend.name());
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        scheduleNext(System.nanoTime());
    }

    /**
     * Schedules the next tick a period after {@code lastStart} (fixed rate: a slow renewal does
     * not push the next one back). The period is a third of what a renewal is worth locally —
     * the lease, or less where the backend says its holds can end sooner
     * ({@link LockBackend#validity}) — read anew each time, as a backend may learn its bound
     * only once connected (a ZooKeeper session timeout is negotiated).
     */
    private void scheduleNext(long lastStart) {
        long period = Math.max(1, client.usableNanos(lease) / 3);
        long delay = Math.max(0, lastStart + period - System.nanoTime());
        try {
            scheduler.schedule(this::runTick, delay, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // the client is closing
        }
    }

    private void runTick() {
        long start = System.nanoTime();
        try {
            tick();
        } finally {
            scheduleNext(start);
        }
    }

    /** Starts watching a new hold: renewed holds are found by the next tick; others get an expiry check. */
    void add(Hold hold) {
        if (!hold.renewed) {
            scheduleExpiryCheck(hold);
        }
    }

    /** Checks the hold at its validity deadline and marks it lost if it has not moved. */
    void scheduleExpiryCheck(Hold hold) {
        long delay = Math.max(0, hold.validUntilNanos() - System.nanoTime()) + TimeUnit.MILLISECONDS.toNanos(1);
        try {
            hold.expiryCheck(scheduler.schedule(() -> client.expiryDue(hold), delay, TimeUnit.NANOSECONDS));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // the client is closing; it ends every hold itself
        }
    }

    private void tick() {
        try {
            List<Hold> holds = new ArrayList<>();
            List<Grant> grants = new ArrayList<>();
            for (KeyGates.Gate gate : keys.all()) {
                Hold hold = gate.hold();
                if (hold != null && hold.renewed && hold.isActive()) {
                    holds.add(hold);
                    grants.add(hold.grant);
                }
            }
            if (holds.isEmpty()) {
                return;
            }
            long start = System.nanoTime();
            Set<Grant> gone;
            // Renewing a key the holder is releasing right now is harmless: release is owner-checked
            // and a renewal of a released hold is refused, which is then ignored as it is no longer active.
            try {
                gone = backend.renewAll(grants, lease);
            } catch (RuntimeException e) {
                log.warn("Renewing {} lock(s) on backend '{}' failed; retrying next tick, leases expire locally "
                        + "if it keeps failing", holds.size(), backend.name(), e);
                for (Hold hold : holds) {
                    client.renewalFailed(hold, e);
                    scheduleExpiryCheck(hold);
                }
                return;
            }
            long elapsed = System.nanoTime() - start;
            for (Hold hold : holds) {
                if (gone.contains(hold.grant)) {
                    client.renewalRejected(hold);
                } else {
                    hold.extendValidity(start + client.usableNanos(lease));
                    client.events().fire(LockEvent.Type.RENEWED, hold.key(), hold.grant.fencingToken(), elapsed, null);
                }
            }
        } catch (Throwable t) {
            // The watchdog thread must survive anything, or every lease would silently stop renewing.
            log.error("Lock watchdog tick failed on backend '{}'", backend.name(), t);
        }
    }

    void shutdown() {
        scheduler.shutdownNow();
    }
}
