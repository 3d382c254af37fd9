package dev.mortise.lock.internal;

import dev.mortise.lock.LockListener;
import dev.mortise.lock.spi.Ticker;

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
 * @param ticker         the clock of lease time: the backend's ({@link dev.mortise.lock.spi.LockBackend#ticker()})
 * @param deadlocks      how deadlocks are detected
 */
record ClientSettings(Duration defaultLease, double driftFactor, Duration driftAllowance, int maxKeyBytes,
                      List<LockListener> listeners, Ticker ticker, dev.mortise.lock.DeadlockDetection deadlocks) {

    /** Settings with the default deadlock detection. */
    ClientSettings(Duration defaultLease, double driftFactor, Duration driftAllowance, int maxKeyBytes,
                   List<LockListener> listeners, Ticker ticker) {
        this(defaultLease, driftFactor, driftAllowance, maxKeyBytes, listeners, ticker,
                dev.mortise.lock.DeadlockDetection.DEFAULT);
    }

    /** Settings on the system ticker. */
    public ClientSettings(Duration defaultLease, double driftFactor, Duration driftAllowance, int maxKeyBytes,
                          List<LockListener> listeners) {
        this(defaultLease, driftFactor, driftAllowance, maxKeyBytes, listeners, Ticker.system());
    }

    /** Nanoseconds of {@code lease} that local validity may count on: lease − (lease × factor + allowance). */
    long usableNanos(Duration lease) {
        long nanos = lease.toNanos();
        return nanos - (long) (nanos * driftFactor) - driftAllowance.toNanos();
    }
}
