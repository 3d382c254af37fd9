package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What the default asynchronous waits of {@link LockBackend#acquireAsync} share: the request, its
 * deadline (from the call), the answer, and what becomes of a grant nobody takes any more.
 */
abstract class AsyncWait {

    final LockBackend backend;
    final LockRequest request;
    final long deadline;
    final CompletableFuture<Optional<Grant>> answer = new CompletableFuture<>();

    AsyncWait(LockBackend backend, LockRequest request, Duration wait) {
        this.backend = backend;
        this.request = request;
        this.deadline = Deadlines.after(System.nanoTime(), wait);
        answer.whenComplete((grant, failure) -> stop());
    }

    /** The answer was completed (granted, timed out, failed, cancelled): stop waiting. */
    abstract void stop();

    /** Answers {@code grant}; if the answer was completed meanwhile (cancelled), releases it instead. */
    void grant(Optional<Grant> grant) {
        if (!answer.complete(grant) && grant.isPresent()) {
            try {
                backend.release(grant.get());
            } catch (RuntimeException ignored) {
                // The hold ends with its lease; nothing else can be done for a caller that is gone.
            }
        }
    }
}
