package dev.mortise.lock.shedlock;

import dev.mortise.lock.LockLostException;
import net.javacrumbs.shedlock.core.SimpleLock;

import java.time.Duration;
import java.util.Optional;

/**
 * A ShedLock lock held through a Mortise lease: see {@link MortiseLockProvider} for the
 * semantics. Usable once: {@link #unlock()} or {@link #extend} makes it invalid.
 */
public final class MortiseSimpleLock implements SimpleLock {

    private final MortiseLockProvider provider;
    private final Hold hold;
    private final int generation;
    private final long atMostUntilNanos;
    private final long atLeastUntilNanos;
    private boolean valid = true; // guarded by this

    /**
     * A lock held until {@code startNanos + atMost} and, once unlocked, kept until
     * {@code startNanos + atLeast}. Either duration may be zero or negative (a configuration
     * whose {@code createdAt} is that far back): a hold already past {@code atMost} is ended
     * before this returns, so the name is free when the caller gets the lock.
     */
    MortiseSimpleLock(MortiseLockProvider provider, Hold hold, int generation, long startNanos, Duration atMost,
                      Duration atLeast) {
        this.provider = provider;
        this.hold = hold;
        this.generation = generation;
        this.atMostUntilNanos = startNanos + atMost.toNanos();
        this.atLeastUntilNanos = startNanos + atLeast.toNanos();
        if (provider.raised(atMost)) {
            // The server was asked for more than lockAtMostFor: end the hold at lockAtMostFor here.
            long left = atMostUntilNanos - System.nanoTime();
            if (left <= 0) {
                hold.endIfCurrent(generation);
            } else {
                hold.endLater(generation, left);
            }
        }
    }

    /** The fencing token of the hold (unchanged by {@code extend}): pass it with the writes the lock protects. */
    public long fencingToken() {
        return hold.lease().fencingToken();
    }

    /** The lock's name as ShedLock gave it. */
    public String name() {
        return hold.name();
    }

    /**
     * Ends the lock. Before {@code lockAtLeastFor} has passed, the hold stays on the server
     * until then and ends by itself. A lock already past {@code lockAtMostFor} ends quietly.
     *
     * @throws IllegalStateException                 if this lock was already unlocked or extended
     * @throws dev.mortise.lock.LockBackendException if the server could not be told (the hold
     *                                               then ends when its lease runs out)
     */
    @Override
    public void unlock() {
        invalidate();
        int last = hold.nextGeneration();
        long remaining = atLeastUntilNanos - System.nanoTime();
        if (remaining <= 0) {
            hold.end(Duration.ZERO);
        } else if (provider.lingersExactly(Duration.ofNanos(remaining))) {
            hold.end(Duration.ofNanos(remaining));
        } else {
            // The server cannot keep this linger as asked (see MortiseLockProvider.lingersExactly):
            // keep the hold, on a lease shortened to about the remainder where that matters, and end it then.
            Duration shortened = provider.shortenedLease(Duration.ofNanos(remaining));
            if (shortened != null) {
                hold.shorten(shortened);
            }
            hold.lingerUntil(last, atLeastUntilNanos);
        }
    }

    /**
     * Replaces this lock with one held {@code lockAtMostFor} and at least {@code lockAtLeastFor}
     * from now, on the same server hold.
     *
     * @return the new lock, or empty if this one is past its {@code lockAtMostFor} or was lost
     * @throws IllegalStateException                 if this lock was already unlocked or extended
     * @throws dev.mortise.lock.LockBackendException if the server could not be reached
     */
    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        invalidate();
        long start = System.nanoTime();
        int next = hold.nextGeneration();
        if (hold.ended() || start - atMostUntilNanos >= 0) {
            hold.end(Duration.ZERO);
            return Optional.empty();
        }
        try {
            hold.lease().extend(provider.serverLease(lockAtMostFor));
        } catch (LockLostException e) {
            hold.end(Duration.ZERO);
            return Optional.empty();
        }
        return Optional.of(new MortiseSimpleLock(provider, hold, next, start, lockAtMostFor, lockAtLeastFor));
    }

    private synchronized void invalidate() {
        if (!valid) {
            throw new IllegalStateException("ShedLock lock '" + hold.name() + "' on backend '" + hold.lease().backend()
                    + "' is no longer valid: it was already unlocked or extended; use the lock extend returned");
        }
        valid = false;
    }

    @Override
    public String toString() {
        return "MortiseSimpleLock[name=" + hold.name() + ", backend=" + hold.lease().backend() + ", token="
                + fencingToken() + "]";
    }
}
