package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.PermitLease;
import dev.mortise.lock.internal.group.LeaseFutures;
import dev.mortise.lock.spi.AsyncWaits;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The answer of one asynchronous semaphore acquisition and the request it has under way: what the
 * native and the slot semaphore's {@code acquireAsync} share around their own steps. The answer is
 * completed once, never on the caller's thread (every step runs on {@link AsyncWaits#executor()}).
 * Completed by anyone else (a cancel), the request under way is cancelled, which withdraws it (a
 * grant racing the cancel is released); a permit lease finished too late is closed, never leaked.
 * Steps run one after another (each from the previous request's answer), so a caller keeps its own
 * state in plain fields.
 *
 * @param <T> what a request answers
 */
final class AsyncPermits<T> {

    private final CompletableFuture<Optional<PermitLease>> answer = new CompletableFuture<>();
    /** The request under way (null before the first). */
    private volatile CompletableFuture<?> asked;

    AsyncPermits() {
        answer.whenComplete((lease, failure) -> {
            CompletableFuture<?> request = asked;
            if (request != null) {
                request.cancel(false);
            }
        });
    }

    /** As {@code acquire}: the permit lease, or a {@code LockTimeoutException} for an empty answer. */
    static CompletableFuture<PermitLease> orTimeout(CompletableFuture<Optional<PermitLease>> taken) {
        return LeaseFutures.map(taken, Optional::orElseThrow, granted -> granted.ifPresent(LeaseFutures::closeQuietly));
    }

    CompletableFuture<Optional<PermitLease>> answer() {
        return answer;
    }

    boolean isDone() {
        return answer.isDone();
    }

    /** Runs the first step on the executor; what it throws (a bad argument) fails the answer. */
    void begin(Runnable first) {
        AsyncWaits.executor().execute(() -> step(first));
    }

    /**
     * Sends {@code request}; {@code then} runs on the executor with its value, or with its failure
     * (unwrapped; a {@link java.util.concurrent.CancellationException} once the answer was completed by
     * someone else). What {@code then} throws fails the answer.
     */
    void ask(CompletableFuture<T> request, BiConsumer<T, Throwable> then) {
        asked = request;
        request.whenCompleteAsync((value, failure) -> step(() -> then.accept(value,
                failure == null ? null : LeaseFutures.unwrap(failure))), AsyncWaits.executor());
        if (answer.isDone()) {
            request.cancel(false);
        }
    }

    /** Ends the acquisition with {@code result}'s answer (or what it throws). */
    void finish(Supplier<Optional<PermitLease>> result) {
        Optional<PermitLease> granted;
        try {
            granted = result.get();
        } catch (RuntimeException | Error e) {
            answer.completeExceptionally(e);
            return;
        }
        if (!answer.complete(granted)) {
            granted.ifPresent(LeaseFutures::closeQuietly);
        }
    }

    void fail(Throwable cause) {
        answer.completeExceptionally(cause);
    }

    private void step(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException | Error e) {
            answer.completeExceptionally(e);
        }
    }
}
