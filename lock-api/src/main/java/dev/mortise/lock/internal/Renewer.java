package dev.mortise.lock.internal;

import dev.mortise.lock.LockEvent;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.Renewals;
import dev.mortise.lock.spi.Ticker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The watchdog: renews every renewed hold of a client with that hold's own lease, in one
 * {@link LockBackend#renewAll} call per distinct lease per tick (one call per tick when, as
 * usual, every hold has the default lease), on one daemon thread that also sends the server
 * clean-up of lost holds. It runs no user code: events go through the {@link Notifier}.
 *
 * <p>A hold is renewed once a third of what its last confirmation is worth has passed (less
 * half a tick, so holds granted between two ticks join the next batch). Ticks run at a fixed
 * rate of a third of the shortest renewal validity among the holds (the default lease's when
 * none is held). Each confirmation sets the hold's validity through {@link Validity} from the
 * request's start; a failed round trip lowers it to what the request would have set if the
 * server applied it, never raises it.
 */
final class Renewer {

    private static final Logger log = LoggerFactory.getLogger(Renewer.class);

    private final LockBackend backend;
    private final Validity validity;
    private final KeyGates keys;
    private final HoldActions actions;
    private final Notifier notifier;
    private final ExpiryTimer expiry;
    private final Duration defaultLease;
    /** The clock of lease time (the backend's): renewals are scheduled and counted on it. */
    private final Ticker ticker;
    private final ScheduledThreadPoolExecutor thread;
    private volatile long nextTickAt;
    /** Only the most recently scheduled tick runs: an earlier tick asked for by {@link #tickWithin} supersedes it. */
    private final java.util.concurrent.atomic.AtomicLong generation = new java.util.concurrent.atomic.AtomicLong();

    Renewer(LockBackend backend, Validity validity, KeyGates keys, HoldActions actions, Notifier notifier,
            ExpiryTimer expiry, Duration defaultLease, Ticker ticker) {
        this.backend = backend;
        this.validity = validity;
        this.keys = keys;
        this.actions = actions;
        this.notifier = notifier;
        this.expiry = expiry;
        this.defaultLease = defaultLease;
        this.ticker = ticker;
        this.thread = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread t = new Thread(runnable, "mortise-watchdog-" + backend.name());
            t.setDaemon(true);
            return t;
        });
        thread.setRemoveOnCancelPolicy(true);
        thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        long now = ticker.read();
        schedule(now, validity.renewalPeriodNanos(defaultLease));
    }

    /** Makes sure a tick runs within {@code nanos} (a hold's lease was shortened by {@code extend}). */
    void tickWithin(long nanos) {
        long now = ticker.read();
        if (nextTickAt - (now + nanos) > 0) {
            schedule(now, nanos);
        }
    }

    /** Runs a server call (the clean-up of a lost hold) on the watchdog thread; false if closing. */
    boolean submit(Runnable serverCall) {
        try {
            thread.execute(serverCall);
            return true;
        } catch (RejectedExecutionException closing) {
            return false;
        }
    }

    private void schedule(long from, long period) {
        long at = from + period;
        nextTickAt = at;
        long mine = generation.incrementAndGet();
        try {
            thread.schedule(() -> runTick(mine), Math.max(0, at - ticker.read()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // the client is closing
        }
    }

    private void runTick(long mine) {
        if (generation.get() != mine) {
            return; // superseded by a tick scheduled later (sooner) than this one
        }
        long start = ticker.read();
        long period = validity.renewalPeriodNanos(defaultLease);
        try {
            period = tick(start, period);
        } catch (Throwable t) {
            // The watchdog thread must survive anything, or every lease would silently stop renewing.
            log.error("Lock watchdog tick failed on backend '{}'", backend.name(), t);
        } finally {
            schedule(start, period);
        }
    }

    /** Renews the holds that are due; returns the period until the next tick. */
    private long tick(long now, long defaultPeriod) {
        long period = defaultPeriod;
        Map<Duration, List<Hold>> due = new LinkedHashMap<>();
        // Holds nearly all share the default lease: compute its period once, not per hold.
        Duration lastLease = null;
        long own = 0;
        for (KeyGates.Gate gate : keys.all()) {
            // Shared and exclusive holds alike: one batch per lease, whatever the mode.
            for (Hold hold : gate.holds()) {
                if (!hold.renewed || !hold.isActive() || hold.ending()) {
                    continue;
                }
                Duration lease = hold.lease();
                if (!lease.equals(lastLease)) {
                    lastLease = lease;
                    own = validity.renewalPeriodNanos(lease);
                }
                period = Math.min(period, own);
                if (now - hold.confirmedStartNanos() < own - defaultPeriod / 2 || !hold.tryBeginRequest()) {
                    continue;
                }
                // Read again under the claim: an extend that completed since the reads above moved the
                // lease and its confirmation, and renewing with the old lease would undo it.
                Duration claimed = hold.lease();
                long claimedPeriod = claimed.equals(lease) ? own : validity.renewalPeriodNanos(claimed);
                period = Math.min(period, claimedPeriod);
                if (now - hold.confirmedStartNanos() >= claimedPeriod - defaultPeriod / 2 && !hold.ending()) {
                    due.computeIfAbsent(claimed, l -> new ArrayList<>()).add(hold);
                } else {
                    hold.endRequest();
                }
            }
        }
        for (Map.Entry<Duration, List<Hold>> batch : due.entrySet()) {
            renew(batch.getKey(), batch.getValue());
        }
        return period;
    }

    private void renew(Duration lease, List<Hold> holds) {
        List<Grant> grants = new ArrayList<>(holds.size());
        for (Hold hold : holds) {
            grants.add(hold.grant);
        }
        long start = ticker.read();
        for (Hold hold : holds) {
            // A request in flight can only lower validity (it cannot here unless the lease is shorter).
            if (hold.unconfirmed(validity.deadline(start, lease, hold.applied()))) {
                expiry.arm(hold);
            }
        }
        Renewals answer;
        try {
            answer = backend.renewAll(grants, lease);
        } catch (RuntimeException e) {
            log.warn("Renewing {} lock(s) on backend '{}' failed; retrying next tick, leases expire locally "
                    + "if it keeps failing", holds.size(), backend.name(), e);
            for (Hold hold : holds) {
                hold.renewalFailed(e);
                hold.endRequest();
                notifier.fireError(LockEvent.Operation.RENEW, hold.key(), hold.mode, hold.grant.fencingToken(), 0, e);
            }
            return;
        }
        long elapsed = ticker.read() - start;
        for (Hold hold : holds) {
            try {
                if (answer.gone().contains(hold.grant)) {
                    actions.loseInBackground(hold, dev.mortise.lock.LostReason.RENEWAL_REJECTED, null);
                } else {
                    Duration applied = Validity.applied(answer.applied(hold.grant).orElse(null), lease);
                    switch (hold.confirmed(start, validity.deadline(start, lease, applied), lease, applied)) {
                        case APPLIED_EARLIER -> expiry.arm(hold);
                        case TOO_LATE -> actions.loseInBackground(hold, dev.mortise.lock.LostReason.EXPIRED,
                                hold.renewalFailure());
                        default -> { }
                    }
                    notifier.fire(LockEvent.Type.RENEWED, hold.key(), hold.mode, hold.grant.fencingToken(), elapsed, null);
                }
            } finally {
                hold.endRequest();
            }
        }
    }

    /**
     * After the ticker jumped: renews, on the watchdog thread, the holds now due, and returns
     * once that is done (or {@code timeoutNanos} passed). The regular schedule is left as it is.
     *
     * @return the shortest renewal period among the renewed holds (how far time may jump next
     *         without one expiring unrenewed), or {@link Long#MAX_VALUE} if none is renewed
     */
    long tickNow(long timeoutNanos) {
        try {
            thread.submit(() -> tick(ticker.read(), validity.renewalPeriodNanos(defaultLease)))
                    .get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            return Long.MAX_VALUE;
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Renewals after a ticker jump did not finish on backend '{}'", backend.name(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long shortest = Long.MAX_VALUE;
        for (KeyGates.Gate gate : keys.all()) {
            for (Hold hold : gate.holds()) {
                if (hold.renewed && hold.isActive()) {
                    shortest = Math.min(shortest, validity.renewalPeriodNanos(hold.lease()));
                }
            }
        }
        return shortest;
    }

    /** Stops ticking; server clean-ups already submitted still run (briefly waited for). */
    void shutdown() {
        thread.shutdown();
        try {
            thread.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
