package dev.mortise.lock.jdbc.internal.hold;

import java.time.Duration;

/** Leases as the statements take them. */
final class Leases {

    private Leases() {
    }

    /** Whole milliseconds, rounded up, at most about a century, so no SQL interval overflows. */
    static long millis(Duration lease) {
        Duration capped = lease.compareTo(Duration.ofDays(36_500)) > 0 ? Duration.ofDays(36_500) : lease;
        return Math.max(1, (capped.toNanos() + 999_999) / 1_000_000);
    }
}
