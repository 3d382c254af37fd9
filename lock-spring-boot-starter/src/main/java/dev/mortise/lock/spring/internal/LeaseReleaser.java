package dev.mortise.lock.spring.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Releases leases whose {@code holdAtLeast} has not yet passed by scheduling the release,
 * so the caller never waits for it. One daemon thread, started on first use.
 */
public final class LeaseReleaser implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseReleaser.class);

    private volatile ScheduledThreadPoolExecutor scheduler;
    private volatile boolean closed;

    /**
     * Runs {@code release} once {@code holdAtLeast} has passed since {@code acquiredNanos}:
     * now if it already has, else on the scheduler thread (failures there are logged).
     *
     * @return true if run now, false if scheduled
     */
    public boolean release(Runnable release, long acquiredNanos, Duration holdAtLeast) {
        long left = holdAtLeast == null ? 0 : holdAtLeast.toNanos() - (System.nanoTime() - acquiredNanos);
        if (left <= 0 || closed) {
            release.run();
            return true;
        }
        scheduler().schedule(() -> {
            try {
                release.run();
            } catch (RuntimeException e) {
                log.warn("Releasing a lock after its holdAtLeast failed; it ends when its lease runs out", e);
            }
        }, left, TimeUnit.NANOSECONDS);
        return false;
    }

    private ScheduledExecutorService scheduler() {
        ScheduledThreadPoolExecutor current = scheduler;
        if (current == null) {
            synchronized (this) {
                current = scheduler;
                if (current == null) {
                    current = new ScheduledThreadPoolExecutor(1, runnable -> {
                        Thread thread = new Thread(runnable, "mortise-lock-release");
                        thread.setDaemon(true);
                        return thread;
                    });
                    current.setRemoveOnCancelPolicy(true);
                    scheduler = current;
                }
            }
        }
        return current;
    }

    /**
     * Stops the scheduler. Pending releases are dropped: closing the lock clients releases
     * those holds (or they expire), and releasing them early would defeat holdAtLeast.
     */
    @Override
    public void close() {
        closed = true;
        ScheduledThreadPoolExecutor current = scheduler;
        if (current != null) {
            current.shutdownNow();
        }
    }
}
