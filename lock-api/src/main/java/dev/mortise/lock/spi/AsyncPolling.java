package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The asynchronous form of {@link BackoffPolling}, with its backoff: one {@link LockBackend#tryAcquire}
 * at a time on {@link AsyncWaits#executor()}, the sleep between two on {@link AsyncWaits#scheduler()},
 * so a waiter holds no thread between attempts. Completing the answer in any way (cancelled, closed,
 * timed out) stops the polling; a grant whose attempt was in flight when the answer was completed
 * is released, never leaked. Creates nothing on the server between attempts.
 */
final class AsyncPolling extends AsyncWait {

    private long ceiling = BackoffPolling.INITIAL_NANOS; // touched by one attempt at a time
    private volatile ScheduledFuture<?> next;

    private AsyncPolling(LockBackend backend, LockRequest request, Duration wait) {
        super(backend, request, wait);
    }

    static CompletableFuture<Optional<Grant>> start(LockBackend backend, LockRequest request, Duration wait) {
        AsyncPolling polling = new AsyncPolling(backend, request, wait);
        AsyncWaits.executor().execute(polling::attempt);
        return polling.answer;
    }

    private void attempt() {
        if (answer.isDone()) {
            return;
        }
        Attempt attempt;
        try {
            attempt = backend.tryAcquire(request);
        } catch (Throwable failure) {
            answer.completeExceptionally(failure);
            return;
        }
        if (attempt.isGranted()) {
            grant(attempt.grant()); // released if cancelled while the attempt was in flight
            return;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            answer.complete(Optional.empty());
            return;
        }
        long sleep = BackoffPolling.nextSleep(ceiling, attempt.holderRemaining().orElse(null), left);
        ceiling = Math.min(BackoffPolling.MAX_NANOS, ceiling * 2);
        next = AsyncWaits.scheduler().schedule(() -> AsyncWaits.executor().execute(this::attempt), sleep,
                TimeUnit.NANOSECONDS);
        if (answer.isDone()) {
            stop();
        }
    }

    @Override
    void stop() {
        ScheduledFuture<?> scheduled = next;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }
}
