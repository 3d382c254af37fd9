package dev.mortise.lock.internal;

import dev.mortise.lock.LockListener;

import java.time.Duration;
import java.util.List;

/**
 * The validated settings of one client.
 *
 * @param defaultLease   lease of renewed holds
 * @param driftFactor    share of a lease allowed for clock drift
 * @param driftAllowance fixed drift allowance
 * @param maxKeyBytes    longest key in UTF-8 bytes
 * @param listeners      event listeners
 */
public record ClientSettings(Duration defaultLease, double driftFactor, Duration driftAllowance, int maxKeyBytes,
                             List<LockListener> listeners) {

    /** Nanoseconds of {@code lease} that local validity may count on: lease − (lease × factor + allowance). */
    long usableNanos(Duration lease) {
        long nanos = lease.toNanos();
        return nanos - (long) (nanos * driftFactor) - driftAllowance.toNanos();
    }
}
