package dev.mortise.lock.chaos;

import java.time.Duration;

/** How a lease of a {@link Workload#MIXED} cycle is taken and changed ({@link ExclusiveCycle}). */
enum LeaseMode {
    /** The client's default lease, renewed by the watchdog. */
    RENEWED,
    /** An explicit lease, not renewed, shorter than the default. */
    EXPLICIT_SHORTER,
    /** An explicit lease, not renewed, longer than the default. */
    EXPLICIT_LONGER,
    /** The default renewed lease, extended to twice the default after the read. */
    EXTEND_LONGER,
    /** The default renewed lease, extended to a shorter lease after the read. */
    EXTEND_SHORTER;

    /** An explicit or extended lease shorter than the default: half of it, but at least the 1 s etcd can honour. */
    static Duration shorter(Duration lease) {
        return Duration.ofMillis(Math.max(1000, lease.toMillis() / 2));
    }
}
