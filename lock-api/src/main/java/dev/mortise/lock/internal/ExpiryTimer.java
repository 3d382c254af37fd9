package dev.mortise.lock.internal;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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

    ExpiryTimer(String backendName, Consumer<Hold> expired) {
        this.expired = expired;
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
        long at = hold.validUntilNanos();
        try {
            hold.expiryCheck(timer.schedule(() -> check(hold), Math.max(0, at - System.nanoTime()),
                    TimeUnit.NANOSECONDS), at);
        } catch (RejectedExecutionException closing) {
            // the client is closing and ends every hold itself
        }
    }

    private void check(Hold hold) {
        if (!hold.isActive()) {
            return;
        }
        if (hold.expiredAt(System.nanoTime())) {
            expired.accept(hold);
        } else {
            arm(hold); // confirmed since: check again at the new deadline
        }
    }

    void shutdown() {
        timer.shutdownNow();
    }
}
