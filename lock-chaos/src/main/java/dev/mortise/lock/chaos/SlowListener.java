package dev.mortise.lock.chaos;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link Workload#MIXED} workload's slow listener: it blocks its (notification) thread for
 * one lease, as slow clean-up on a loss would. Thread-safe.
 */
final class SlowListener {

    /** Last end of a slow listener's block, so at most one lease in two is spent blocked. */
    private static final AtomicLong LAST_SLOW_END = new AtomicLong();

    private SlowListener() {
    }

    /**
     * Blocks the calling (notification) thread for one lease, as slow clean-up on a loss would;
     * skipped on the worker's own thread (a loss its close found: blocking there only slows the
     * loop) and when the last block ended less than a lease ago, so the backlog of notifications
     * stays bounded and the victims' LOST lines still arrive within the run.
     */
    static void block(Duration lease) {
        if (Thread.currentThread().getName().equals("main")) {
            return;
        }
        long now = System.nanoTime();
        long last = LAST_SLOW_END.get();
        if (last != 0 && now - last < lease.toNanos()) {
            return;
        }
        try {
            WorkerLog.log("SLOW_LISTENER", "-", 0, lease.toMillis());
            Thread.sleep(lease.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            LAST_SLOW_END.set(System.nanoTime());
        }
    }
}
