package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackoffPolling;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A wait that the database can cut short: between attempts the waiter sleeps on its key's
 * {@link ReleaseSignals.Signal} until a release is announced, the holder's lease runs out,
 * the push poll interval passes, or the deadline comes. While the listener is not
 * listening it polls with exponential backoff and jitter instead. Creates nothing on the
 * server between attempts, so a timed-out or interrupted wait leaves nothing behind.
 */
public final class PushedWait {

    private static final long ONE_MILLI = TimeUnit.MILLISECONDS.toNanos(1);

    private final LockBackend backend;
    private final ReleaseListener listener;
    private final ReleaseSignals signals;
    private final long pollNanos;
    private final long listenStartNanos;

    public PushedWait(LockBackend backend, ReleaseListener listener, ReleaseSignals signals, long pollNanos,
                      long listenStartNanos) {
        this.backend = backend;
        this.listener = listener;
        this.signals = signals;
        this.pollNanos = pollNanos;
        this.listenStartNanos = listenStartNanos;
    }

    public Optional<Grant> acquire(LockRequest request, String storedKey, Duration wait) throws InterruptedException {
        long deadline = Deadlines.after(System.nanoTime(), wait);
        listener.awaitListening(0); // starts it without waiting: a down database fails the first attempt at once
        boolean awaitedListener = false;
        long ceiling = BackoffPolling.INITIAL_NANOS;
        try (ReleaseSignals.Signal signal = signals.open(storedKey)) {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock '" + request.key() + "'");
                }
                long seen = signal.generation();
                Attempt attempt = backend.tryAcquire(request);
                if (attempt.isGranted()) {
                    return attempt.grant();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                if (!awaitedListener && !listener.isListening()) {
                    // Busy before LISTEN was up: wait for it once, then try again at once, since a
                    // release in between was not heard.
                    awaitedListener = true;
                    listener.awaitListening(Math.min(listenStartNanos, left));
                    continue;
                }
                long sleep;
                if (listener.isListening()) {
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
