package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.DeadlockDetection;

import java.time.Duration;

/**
 * Deadlock detection of every auto-configured lock client ({@code mortise.lock.deadlock-detection.*}),
 * turned into the client setting {@link DeadlockDetection} by {@link #toSetting()}; the defaults are
 * {@link DeadlockDetection#DEFAULT}'s. Not thread-safe: bound once at start-up.
 */
public class DeadlockDetectionProperties {

    private static final String PREFIX = "mortise.lock.deadlock-detection";

    /**
     * Whether lock clients look for deadlocks across instances: a wait that lasts longer than the
     * threshold while its owner holds other locks is published on the lock server and followed,
     * and a confirmed cycle of waits ends its youngest wait with LockDeadlockException. Off: waits
     * end only by their wait time.
     */
    private boolean enabled = true;

    /**
     * How long a wait lasts before it is published and followed, 10ms to 1h. Waits shorter than
     * this cost nothing.
     */
    private Duration threshold = Duration.ofMillis(200);

    /**
     * How often a published wait is refreshed and followed again, 50ms to 1m.
     */
    private Duration period = Duration.ofMillis(500);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getThreshold() {
        return threshold;
    }

    public void setThreshold(Duration threshold) {
        this.threshold = threshold;
    }

    public Duration getPeriod() {
        return period;
    }

    public void setPeriod(Duration period) {
        this.period = period;
    }

    /**
     * The client setting these properties describe; the threshold and period are checked even when
     * detection is off, so that turning it on later cannot fail start-up.
     *
     * @throws IllegalStateException naming the property that is out of range and how to fix it
     */
    DeadlockDetection toSetting() {
        check("threshold", threshold, Duration.ofMillis(10), Duration.ofHours(1), "200ms");
        check("period", period, Duration.ofMillis(50), Duration.ofMinutes(1), "500ms");
        return new DeadlockDetection(enabled, threshold, period);
    }

    private static void check(String name, Duration value, Duration min, Duration max, String byDefault) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalStateException(PREFIX + "." + name + "=" + (value == null ? "" : text(value))
                    + " is out of range: it must be between " + text(min) + " and " + text(max) + ". Fix "
                    + PREFIX + "." + name + " (or remove it for the default, " + byDefault + "); "
                    + PREFIX + ".enabled=false turns deadlock detection off.");
        }
    }

    /** {@code 10ms}, {@code 2m}, {@code 1h}: the form properties are written in (ISO-8601 below a millisecond). */
    private static String text(Duration duration) {
        if (duration.toNanos() % 1_000_000 != 0 || duration.isNegative()) {
            return duration.toString();
        }
        long millis = duration.toMillis();
        if (millis % 1000 != 0 || millis == 0) {
            return millis + "ms";
        }
        long seconds = millis / 1000;
        if (seconds % 60 != 0) {
            return seconds + "s";
        }
        return seconds % 3600 != 0 ? seconds / 60 + "m" : seconds / 3600 + "h";
    }
}
