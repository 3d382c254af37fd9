package dev.mortise.lock;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link LockClient} looks for deadlocks across processes ({@link LockClientBuilder#deadlockDetection}):
 * a wait that lasts longer than {@link #threshold()} while its owner holds other locks of the same
 * client publishes a wait record on the lock server and, every {@link #period()}, follows the chain
 * key → holders → their waits; a cycle found twice in a row ends the youngest wait in it with
 * {@link LockDeadlockException}. Immutable and thread-safe.
 *
 * <p>It costs nothing on an acquire that does not wait, on a wait shorter than the threshold, and on
 * a wait whose owner holds nothing else of the client; beyond the threshold, one round is bounded
 * to {@link #MAX_REQUESTS_PER_ROUND} requests to the server. See docs/deadlocks.md for what it
 * cannot see.
 *
 * @param enabled   false turns detection off: waits end only by their wait time
 * @param threshold how long a wait lasts before it is published and followed
 * @param period    how often a published wait is refreshed and followed again
 */
public record DeadlockDetection(boolean enabled, Duration threshold, Duration period) {

    /** The requests (inspections and record reads) one detection round sends at most. */
    public static final int MAX_REQUESTS_PER_ROUND = 48;
    /** The longest chain of waits a round follows. */
    public static final int MAX_DEPTH = 8;
    /** The default: on, after 200 ms, every 500 ms. */
    public static final DeadlockDetection DEFAULT =
            new DeadlockDetection(true, Duration.ofMillis(200), Duration.ofMillis(500));

    /**
     * @throws IllegalArgumentException if the threshold is not in [10 ms, 1 h] or the period not in
     *                                  [50 ms, 1 min]
     */
    public DeadlockDetection {
        Objects.requireNonNull(threshold, "threshold");
        Objects.requireNonNull(period, "period");
        if (threshold.compareTo(Duration.ofMillis(10)) < 0 || threshold.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("deadlock detection threshold must be in [10ms, 1h], was " + threshold
                    + "; 200ms is the default, DeadlockDetection.off() turns detection off");
        }
        if (period.compareTo(Duration.ofMillis(50)) < 0 || period.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException("deadlock detection period must be in [50ms, 1min], was " + period
                    + "; 500ms is the default");
        }
    }

    /** Detection off: no wait record is ever written. */
    public static DeadlockDetection off() {
        return new DeadlockDetection(false, DEFAULT.threshold, DEFAULT.period);
    }

    /** Detection on, publishing waits longer than {@code threshold}, followed every 500 ms. */
    public static DeadlockDetection after(Duration threshold) {
        return new DeadlockDetection(true, threshold, DEFAULT.period);
    }

    /** This setting with rounds every {@code period}. */
    public DeadlockDetection every(Duration period) {
        return new DeadlockDetection(enabled, threshold, period);
    }
}
