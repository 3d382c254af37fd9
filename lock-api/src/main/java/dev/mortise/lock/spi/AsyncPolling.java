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
final class AsyncPolling {

    private final LockBackend backend;
    private final LockRequest request;
    private final long deadline;
    private final CompletableFuture<Optional<Grant>> answer = new CompletableFuture<>();
    private long ceiling = BackoffPolling.INITIAL_NANOS; // touched by one attempt at a time
    private volatile ScheduledFuture<?> next;

    private AsyncPolling(LockBackend backend, LockRequest request, Duration wait) {
        this.backend = backend;
        this.request = request;
        this.deadline = Deadlines.after(System.nanoTime(), wait);
    }

    static CompletableFuture<Optional<Grant>> start(LockBackend backend, LockRequest request, Duration wait) {
        AsyncPolling polling = new AsyncPolling(backend, request, wait);
        polling.answer.whenComplete((grant, failure) -> polling.stop());
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
            Grant grant = attempt.grant().get();
            if (!answer.complete(Optional.of(grant))) {
                releaseQuietly(backend, grant); // cancelled while the attempt was in flight
            }
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

    private void stop() {
        ScheduledFuture<?> scheduled = next;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }

    /** Releases a grant no one will receive; a failure leaves it to expire with its lease. */
    static void releaseQuietly(LockBackend backend, Grant grant) {
        try {
            backend.release(grant);
        } catch (RuntimeException ignored) {
            // The hold ends with its lease; nothing else can be done for a caller that is gone.
        }
    }
}
