package dev.mortise.lock.shedlock;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The Mortise lease behind one ShedLock lock and every lock {@code extend} made of it.
 *
 * <p>Each {@link MortiseSimpleLock} of the chain has a generation; only the newest may end
 * the hold by timer, so a timer of a lock since extended or unlocked does nothing. Ending
 * the hold is done under the same lock as those checks, so a caller that finds the lock expired waits
 * for the timer's release to reach the server before it reports the name free.
 */
final class Hold {

    private static final Logger log = LoggerFactory.getLogger(Hold.class);

    private final MortiseLockProvider provider;
    private final String name;
    private final LockLease lease;
    /**
     * Guards the generation and ending the hold (a release or linger call to the server): a lock,
     * not a monitor, so a virtual thread that unlocks does not pin its carrier on JDK 21-23.
     * Reentrant: {@code lingerUntil} and {@code endIfCurrent} end the hold under it.
     */
    private final ReentrantLock state = new ReentrantLock();
    private int generation; // guarded by state
    private boolean ended; // guarded by state
    private ScheduledFuture<?> timer; // guarded by state: the newest generation's, if any
    private long lingerUntilNanos; // guarded by state: the lockAtLeastFor instant the timer ends an unlocked hold at
    private boolean lingering; // guarded by state: unlocked, kept open until lingerUntilNanos

    Hold(MortiseLockProvider provider, String name, LockLease lease) {
        this.provider = provider;
        this.name = name;
        this.lease = lease;
    }

    LockLease lease() {
        return lease;
    }

    String name() {
        return name;
    }

    /** Starts a new generation: the timer of the previous one no longer ends the hold. */
    int nextGeneration() {
        state.lock();
        try {
            cancelTimer();
            return ++generation;
        } finally {
            state.unlock();
        }
    }

    boolean ended() {
        state.lock();
        try {
            return ended;
        } finally {
            state.unlock();
        }
    }

    /**
     * Ends an unlocked hold at {@code untilNanos} (its lockAtLeastFor instant), kept open until
     * then; {@link MortiseLockProvider#close()} hands such holds to the server instead.
     */
    void lingerUntil(int forGeneration, long untilNanos) {
        state.lock();
        try {
            lingering = true;
            lingerUntilNanos = untilNanos;
            provider.pending(this);
            if (!endLater(forGeneration, untilNanos - System.nanoTime())) {
                handOver(); // the provider is closed: no timer will end it
            }
        } finally {
            state.unlock();
        }
    }

    /**
     * On the provider's close: leaves an unlocked hold still short of its lockAtLeastFor on
     * the server for the rest of it (rounded up by servers that round: never shorter), since
     * no timer will end it and the client's close would release it at once.
     */
    void handOver() {
        state.lock();
        try {
            if (lingering && !ended) {
                long remaining = lingerUntilNanos - System.nanoTime();
                end(remaining > 0 ? Duration.ofNanos(remaining) : Duration.ZERO);
            }
        } finally {
            state.unlock();
        }
    }

    /**
     * Ends the hold after {@code delayNanos} unless a newer generation has started by then.
     *
     * @return false if the provider is closed and no timer was set
     */
    boolean endLater(int forGeneration, long delayNanos) {
        state.lock();
        try {
            if (ended || forGeneration != generation) {
                return true;
            }
            cancelTimer();
            timer = provider.schedule(() -> endIfCurrent(forGeneration), delayNanos);
            return timer != null;
        } finally {
            state.unlock();
        }
    }

    /**
     * Releases the hold now if {@code forGeneration} is still the newest; a release the server
     * could not be told of is logged, not thrown (the server drops the hold when its lease runs out).
     */
    void endIfCurrent(int forGeneration) {
        try {
            state.lock();
            try {
                if (forGeneration == generation) {
                    end(Duration.ZERO);
                }
            } finally {
                state.unlock();
            }
        } catch (RuntimeException e) {
            // Nobody to tell (the timer thread, or a lock() whose grant stands); the server drops
            // the hold when its lease runs out.
            log.warn("Could not release ShedLock lock '{}' on backend '{}' at its end; the server drops it when its "
                    + "lease runs out", name, lease.backend(), e);
        }
    }

    /**
     * Ends the hold once: releases it on the server, or leaves it there for {@code linger}.
     * A hold already gone (its lease ran out, or it was lost) ends quietly: ShedLock's
     * {@code unlock} of an expired lock is not an error.
     *
     * @throws dev.mortise.lock.LockBackendException if the server could not be told
     */
    void end(Duration linger) {
        state.lock();
        try {
            if (ended) {
                return;
            }
            ended = true;
            cancelTimer();
            try {
                lease.closeLingering(linger);
            } catch (LockLostException e) {
                log.debug("ShedLock lock '{}' on backend '{}' had already ended on the server", name, lease.backend(), e);
            } finally {
                if (lingering) {
                    provider.done(this);
                }
            }
        } finally {
            state.unlock();
        }
    }

    /**
     * Sets the server lease of the open hold to {@code lease} from now. Best effort: a hold
     * already gone is left to {@link #end}; a server out of reach keeps the longer lease.
     */
    void shorten(Duration lease) {
        state.lock();
        try {
            if (ended) {
                return;
            }
            try {
                this.lease.extend(lease);
            } catch (LockLostException e) {
                log.debug("ShedLock lock '{}' on backend '{}' had already ended on the server", name, this.lease.backend(), e);
            } catch (RuntimeException e) {
                log.debug("Could not shorten the lease of ShedLock lock '{}' on backend '{}'; it keeps its longer lease",
                        name, this.lease.backend(), e);
            }
        } finally {
            state.unlock();
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
