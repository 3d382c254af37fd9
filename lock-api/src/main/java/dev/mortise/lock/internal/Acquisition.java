package dev.mortise.lock.internal;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Permits;

import java.time.Duration;

/**
 * One single-key acquire after its arguments were checked: what {@link Acquirer} carries from the
 * checks through the local gate to the server request.
 *
 * @param key            the checked key
 * @param mode           the mode asked for
 * @param permits        the permits of a semaphore acquisition, or null for a lock
 * @param waitTime       how long the caller waits, zero for one try
 * @param explicitLease  the caller's lease, or null for the client's default, renewed
 * @param ownerId        the caller's owner id, or null when the thread owns the hold
 * @param ownerThread    the owning thread when {@code ownerId} is null, else null
 * @param start          {@link System#nanoTime()} when the acquire started
 * @param deadline       {@link System#nanoTime()} when the wait runs out
 * @param throwOnTimeout whether a wait that runs out throws, or gives null
 */
record Acquisition(String key, LockMode mode, Permits permits, Duration waitTime, Duration explicitLease,
                   String ownerId, Thread ownerThread, long start, long deadline, boolean throwOnTimeout) {

    /** The lease the server is asked for: the explicit one, or the client's default. */
    Duration lease(ClientSettings settings) {
        return explicitLease != null ? explicitLease : settings.defaultLease();
    }

    /** Whether the hold is renewed by the watchdog (no explicit lease). */
    boolean renewed() {
        return explicitLease == null;
    }
}
