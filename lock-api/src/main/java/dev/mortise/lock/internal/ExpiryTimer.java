package dev.mortise.lock.internal;

import dev.mortise.lock.spi.Ticker;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Turns a hold whose validity deadline passes into a loss, on time: one check per hold,
 * scheduled at its deadline and moved on when a confirmation moved the deadline. Runs on a
 * thread of its own that does no I/O and runs no user code, so neither a renewal hanging
 * for its whole operation timeout nor a slow listener can delay an expiry.
 */
final class ExpiryTimer {

    private final ScheduledThreadPoolExecutor timer;
    private final Consumer<Hold> expired;
    private final Ticker ticker;
    /**
     * Least delay before checking a hold that is not yet expired again: none on the system
     * ticker; a millisecond of real time on a hand-moved one, whose time may stand still a hair
     * before a deadline (its jumps are checked by {@link #sweep}).
     */
    private final long recheckFloorNanos;

    ExpiryTimer(String backendName, Ticker ticker, Consumer<Hold> expired) {
        this.expired = expired;
        this.ticker = ticker;
        this.recheckFloorNanos = ticker.isSystem() ? 0 : 1_000_000;
        this.timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "mortise-expiry-" + backendName);
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** (Re)schedules the check of {@code hold} at its current deadline. */
    void arm(Hold hold) {
        arm(hold, 0);
    }

    private void arm(Hold hold, long floorNanos) {
        long at = hold.validUntilNanos();
        try {
            hold.expiryCheck(timer.schedule(() -> check(hold), Math.max(floorNanos, at - ticker.read()),
                    TimeUnit.NANOSECONDS), at);
        } catch (RejectedExecutionException closing) {
            // the client is closing and ends every hold itself
        }
    }

    private void check(Hold hold) {
        if (!hold.isActive()) {
            return;
        }
        if (hold.expiredAt(ticker.read())) {
            expired.accept(hold);
        } else {
            arm(hold, recheckFloorNanos); // confirmed since: check again at the new deadline
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
