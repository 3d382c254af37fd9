package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The default wait of backends the server cannot wake: retry {@link LockBackend#tryAcquire}
 * with exponential backoff and full jitter, each sleep bounded by the holder's remaining
 * lease (when the server reports it) and by the caller's deadline.
 */
public final class BackoffPolling {

    /** First sleep ceiling. */
    public static final long INITIAL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** Largest sleep ceiling. */
    public static final long MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private BackoffPolling() {
    }

    /** Polls {@code backend} until granted or {@code wait} runs out. Creates nothing on the server between attempts. */
    public static Optional<Grant> acquire(LockBackend backend, LockRequest request, Duration wait)
            throws InterruptedException {
        long deadline = Deadlines.after(System.nanoTime(), wait);
        long ceiling = INITIAL_NANOS;
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for lock '" + request.key() + "'");
            }
            Attempt attempt = backend.tryAcquire(request);
            if (attempt.isGranted()) {
                return attempt.grant();
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            long sleep = nextSleep(ceiling, attempt.holderRemaining().orElse(null), left);
            TimeUnit.NANOSECONDS.sleep(sleep);
            ceiling = Math.min(MAX_NANOS, ceiling * 2);
        }
    }

    /**
     * One sleep: uniform in [ceiling/2, ceiling], then no longer than the holder's
     * remaining lease (plus a millisecond, so we arrive just after it expires) and the
     * time left.
     */
    static long nextSleep(long ceiling, Duration holderRemaining, long left) {
        long sleep = ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
        if (holderRemaining != null) {
            sleep = Math.min(sleep, holderRemaining.toNanos() + TimeUnit.MILLISECONDS.toNanos(1));
        }
        return Math.max(0, Math.min(sleep, left));
    }
}
