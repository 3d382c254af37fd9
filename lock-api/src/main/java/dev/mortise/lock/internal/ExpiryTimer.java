package dev.mortise.lock.internal;

import dev.mortise.lock.spi.Ticker;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Turns a hold whose validity deadline passes into a loss, on time. Runs on a thread of its own
 * that does no I/O and runs no user code, so neither a renewal hanging for its whole operation
 * timeout nor a slow listener can delay an expiry.
 *
 * <p>One check for all holds, not one per hold: the check is scheduled at the earliest deadline
 * it knows of, looks at every hold of the client ({@link KeyGates}), ends those whose deadline
 * has passed and schedules itself at the earliest deadline left. Most holds are released long
 * before their deadline, so a hold costs a volatile read when it is armed and nothing when it
 * is released (a task per hold cost an object graph and two trips through a lock that every
 * acquiring thread shared).
 *
 * <p>The invariant: every active hold's deadline is at or after the scheduled check, or was
 * reported by {@link #arm} since the running check began ({@link #armedMin}), which that check
 * takes into account before it schedules the next. So {@link #arm} must be called when a hold is
 * published and whenever its deadline is lowered; a deadline that moves later needs nothing (the
 * check runs early, finds it valid and looks again).
 */
final class ExpiryTimer {

    private static final long NONE = Long.MAX_VALUE;

    private final ScheduledThreadPoolExecutor timer;
    private final Consumer<Hold> expired;
    private final Ticker ticker;
    private final KeyGates gates;
    /**
     * Least delay before checking a hold that is not yet expired again: none on the system
     * ticker; a millisecond of real time on a hand-moved one, whose time may stand still a hair
     * before a deadline (its jumps are checked by {@link #sweep}).
     */
    private final long recheckFloorNanos;

    /** The earliest deadline armed since the last check began, or {@link #NONE}. */
    private final AtomicLong armedMin = new AtomicLong(NONE);
    /** When the scheduled check runs (ticker time), or {@link #NONE}; written under this. */
    private volatile long scheduledAt = NONE;
    private ScheduledFuture<?> scheduled; // guarded by this
    /** Counts the checks scheduled; only the latest one is {@link #scheduled} (guarded by this). */
    private long generation;

    ExpiryTimer(String backendName, Ticker ticker, KeyGates gates, Consumer<Hold> expired) {
        this.expired = expired;
        this.ticker = ticker;
        this.gates = gates;
        this.recheckFloorNanos = ticker.isSystem() ? 0 : 1_000_000;
        this.timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "mortise-expiry-" + backendName);
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * Makes sure {@code hold} is checked at its current deadline: call it once the hold is
     * published in its gate, and again whenever its deadline was lowered.
     */
    void arm(Hold hold) {
        long at = hold.validUntilNanos();
        long min = armedMin.get();
        while (at - min < 0 && !armedMin.compareAndSet(min, at)) {
            min = armedMin.get();
        }
        // armedMin is written before scheduledAt is read, and check() writes scheduledAt before it
        // reads armedMin: if this sees a check that is about to be replaced, that check sees this deadline.
        if (before(at, scheduledAt)) {
            scheduleNoLaterThan(at, 0);
        }
    }

    /** True if {@code a} is earlier than {@code b} ({@link #NONE} is later than any time). */
    private static boolean before(long a, long b) {
        return b == NONE ? a != NONE : a - b < 0;
    }

    private synchronized void scheduleNoLaterThan(long at, long floorNanos) {
        if (!before(at, scheduledAt)) {
            return;
        }
        if (scheduled != null) {
            scheduled.cancel(false);
        }
        scheduledAt = at;
        long mine = ++generation;
        try {
            scheduled = timer.schedule(() -> check(mine), Math.max(floorNanos, at - ticker.read()),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // the client is closing and ends every hold itself
            scheduled = null;
        }
    }

    /** The one check: ends every hold past its deadline and schedules itself at the earliest deadline left. */
    private void check(long mine) {
        synchronized (this) {
            if (generation != mine) {
                return; // replaced by an earlier check while it was due: that one looks
            }
        }
        armedMin.set(NONE); // from here on arm reports into armedMin; holds armed before are in the gates
        long now = ticker.read();
        long earliest = NONE;
        for (KeyGates.Gate gate : gates.all()) {
            for (Hold hold : gate.holds()) {
                if (!hold.isActive()) {
                    continue;
                }
                long at = hold.validUntilNanos();
                if (hold.expiredAt(now)) {
                    expired.accept(hold);
                } else if (before(at, earliest)) {
                    earliest = at;
                }
            }
        }
        synchronized (this) {
            if (generation == mine) {
                scheduledAt = NONE;
                scheduled = null;
            } // else an arm scheduled an earlier check meanwhile: it stays
        }
        // An arm racing with this check either saw scheduledAt NONE (or a check scheduled since)
        // and scheduled its deadline itself, or its deadline is in armedMin now.
        long armed = armedMin.get();
        long next = before(armed, earliest) ? armed : earliest;
        if (next != NONE) {
            scheduleNoLaterThan(next, recheckFloorNanos);
        }
    }

    /**
     * After the ticker jumped: ends every active hold in {@code gates} whose deadline has passed,
     * on the timer's thread, and returns once that is done (or {@code timeoutNanos} passed).
     */
    void sweep(KeyGates gates, long timeoutNanos) {
        Runnable sweep = () -> {
            long now = ticker.read();
            for (KeyGates.Gate gate : gates.all()) {
                for (Hold hold : gate.holds()) {
                    if (hold.isActive() && hold.expiredAt(now)) {
                        expired.accept(hold);
                    }
                }
            }
        };
        try {
            timer.submit(sweep).get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // the client is closing and ends every hold itself
        } catch (ExecutionException | TimeoutException e) {
            LoggerFactory.getLogger(ExpiryTimer.class).warn("Expiry sweep after a ticker jump did not finish", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void shutdown() {
        timer.shutdownNow();
    }
}
