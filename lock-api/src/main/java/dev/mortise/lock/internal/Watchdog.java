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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Renews every renewed hold of a client every third of the default lease, in one
 * {@link LockBackend#renewAll} call per tick, on one daemon thread; and runs the one-shot
 * expiry checks that turn an unrenewed lease into a loss at its deadline.
 */
final class Watchdog {

    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

    private final DefaultLockClient client;
    private final LockBackend backend;
    private final Duration lease;
    private final Set<Hold> renewed = ConcurrentHashMap.newKeySet();
    private final ScheduledThreadPoolExecutor scheduler;

    Watchdog(DefaultLockClient client, LockBackend backend, Duration lease) {
        this.client = client;
        this.backend = backend;
        this.lease = lease;
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "mortise-watchdog-" + backend.name());
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        long period = Math.max(1, lease.toNanos() / 3);
        scheduler.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.NANOSECONDS);
    }

    void add(Hold hold) {
        if (hold.renewed) {
            renewed.add(hold);
        } else {
            scheduleExpiryCheck(hold);
        }
    }

    void remove(Hold hold) {
        renewed.remove(hold);
    }

    int size() {
        return renewed.size();
    }

    /** Checks the hold at its validity deadline and marks it lost if it has not moved. */
    void scheduleExpiryCheck(Hold hold) {
        long delay = Math.max(0, hold.validUntilNanos() - System.nanoTime()) + TimeUnit.MILLISECONDS.toNanos(1);
        try {
            hold.expiryCheck(scheduler.schedule(() -> client.checkExpiry(hold), delay, TimeUnit.NANOSECONDS));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // the client is closing; it ends every hold itself
        }
    }

    private void tick() {
        try {
            List<Hold> holds = new ArrayList<>(renewed.size());
            List<Grant> grants = new ArrayList<>(renewed.size());
            for (Hold hold : renewed) {
                if (hold.isActive()) {
                    holds.add(hold);
                    grants.add(hold.grant);
                } else {
                    renewed.remove(hold);
                }
            }
            if (holds.isEmpty()) {
                return;
            }
            long start = System.nanoTime();
            Set<Grant> gone;
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
