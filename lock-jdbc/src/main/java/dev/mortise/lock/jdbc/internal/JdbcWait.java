package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackoffPolling;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.WaitSteps;

import java.time.Duration;

/**
 * The waits of one backend ({@link #steps}, one {@link JdbcWaitSteps} per wait): attempts, and
 * between them a sleep on the key's {@link ReleaseSignals.Signal} until a release is announced
 * (PostgreSQL's LISTEN), the holder's lease (or the writer marker that blocks a reader) runs out,
 * the push poll interval passes, or the deadline comes. Without a listener, or while it is not
 * listening, it sleeps with exponential backoff and jitter instead.
 *
 * <p>Each attempt is told how long a writer's marker it leaves should last: until the next
 * attempt is certainly due ({@link #markHorizonNanos}), never past the deadline. The only thing
 * a wait leaves on the server between attempts is that marker; {@link Attempts#giveUp} removes
 * it when the wait ends without a grant (timeout, interruption, cancel, failure). Thread-safe.
 */
public final class JdbcWait {

    /** The attempts of one wait. */
    public interface Attempts {

        /** One attempt; an exclusive one leaves a writer marker that lasts {@code markMillis} if busy. */
        Attempt attempt(long markMillis);

        /** The wait ends without a grant: remove what the attempts left (the writer marker), if anything. Once. */
        void giveUp();
    }

    private final ReleaseListener listener;
    private final ReleaseSignals signals;
    private final long pollNanos;
    private final long listenStartNanos;
    private final long markHorizonNanos;

    /**
     * @param listener         the LISTEN connection, or null where waiters poll
     * @param operationNanos   the operation timeout: a marker outlives the longest sleep by two of them
     */
    public JdbcWait(ReleaseListener listener, ReleaseSignals signals, long pollNanos, long operationNanos) {
        this.listener = listener;
        this.signals = signals;
        this.pollNanos = pollNanos;
        this.listenStartNanos = operationNanos;
        long longestSleep = listener == null ? BackoffPolling.MAX_NANOS : Math.max(pollNanos, BackoffPolling.MAX_NANOS);
        this.markHorizonNanos = longestSleep + 2 * operationNanos;
    }

    /** How long a writer marker lasts at most: the longest sleep between two attempts plus two operation timeouts. */
    public long markHorizonNanos() {
        return markHorizonNanos;
    }

    /**
     * The wait for one key, up to {@code wait} from now, as steps for a
     * {@link dev.mortise.lock.spi.WaitDriver}: run blocking or asynchronously, the same loop.
     *
     * @param storedKey the key as stored, which releases are announced by
     */
    public WaitSteps steps(String storedKey, Duration wait, Attempts attempts) {
        return new JdbcWaitSteps(this, signals.open(storedKey), Deadlines.after(System.nanoTime(), wait), attempts);
    }

    /** The LISTEN connection, or null where waiters poll. */
    ReleaseListener listener() {
        return listener;
    }

    /** How long a waiter sleeps between attempts while LISTEN is up (a holder that expires sends nothing). */
    long pollNanos() {
        return pollNanos;
    }

    /** How long a waiter that found LISTEN down sleeps at most, once, for it to come up. */
    long listenStartNanos() {
        return listenStartNanos;
    }
}
