package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackoffPolling;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A wait for one key: attempts, and between them a sleep on the key's
 * {@link ReleaseSignals.Signal} until a release is announced (PostgreSQL's LISTEN), the
 * holder's lease (or the writer marker that blocks a reader) runs out, the push poll interval
 * passes, or the deadline comes. Without a listener, or while it is not listening, it sleeps
 * with exponential backoff and jitter instead.
 *
 * <p>Each attempt is told how long a writer's marker it leaves should last: until the next
 * attempt is certainly due ({@link #markHorizonNanos}), never past the deadline. The only thing
 * a wait leaves on the server between attempts is that marker; {@link Attempts#giveUp} removes
 * it when the wait ends without a grant (timeout, interruption, failure).
 */
public final class JdbcWait {

    private static final long ONE_MILLI = TimeUnit.MILLISECONDS.toNanos(1);

    /** The attempts of one wait. */
    public interface Attempts {

        /** One attempt; an exclusive one leaves a writer marker that lasts {@code markMillis} if busy. */
        Attempt attempt(long markMillis);

        /** The wait ends without a grant: remove what the attempts left (the writer marker), if anything. */
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

    public Optional<Grant> acquire(String userKey, String storedKey, Duration wait, Attempts attempts)
            throws InterruptedException {
        long deadline = Deadlines.after(System.nanoTime(), wait);
        boolean done = false;
        try {
            Optional<Grant> grant = await(userKey, storedKey, deadline, attempts);
            done = grant.isPresent();
            return grant;
        } finally {
            if (!done) {
                attempts.giveUp();
            }
        }
    }

    private Optional<Grant> await(String userKey, String storedKey, long deadline, Attempts attempts)
            throws InterruptedException {
        if (listener != null) {
            listener.awaitListening(0); // starts it without waiting: a down database fails the first attempt at once
        }
        boolean awaitedListener = false;
        long ceiling = BackoffPolling.INITIAL_NANOS;
        try (ReleaseSignals.Signal signal = signals.open(storedKey)) {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock '" + userKey + "'");
                }
                long seen = signal.generation();
                long left = deadline - System.nanoTime();
                long mark = Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(Math.max(left, 0), markHorizonNanos)));
                Attempt attempt = attempts.attempt(mark);
                if (attempt.isGranted()) {
                    return attempt.grant();
                }
                left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                if (listener != null && !awaitedListener && !listener.isListening()) {
                    // Busy before LISTEN was up: wait for it once, then try again at once, since a
                    // release in between was not heard.
                    awaitedListener = true;
                    listener.awaitListening(Math.min(listenStartNanos, left));
                    continue;
                }
                long sleep;
                if (listener != null && listener.isListening()) {
                    sleep = pollNanos;
                } else {
                    sleep = ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
                    ceiling = Math.min(BackoffPolling.MAX_NANOS, ceiling * 2);
                }
                if (attempt.holderRemaining().isPresent()) {
                    sleep = Math.min(sleep, attempt.holderRemaining().get().toNanos() + ONE_MILLI);
                }
                signal.await(seen, Math.min(sleep, left));
            }
        }
    }
}
