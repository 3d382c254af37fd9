package dev.mortise.lock.internal.group;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Futures of leases that a caller may cancel. {@link CompletableFuture#thenApply} makes a future whose
 * cancel never reaches the one it maps: a cancelled caller would leave the request waiting, and its
 * lease, when granted, held by no one. {@link #map} withdraws instead. Stateless; thread-safe.
 */
public final class LeaseFutures {

    private LeaseFutures() {
    }

    /**
     * The answer {@code fn} makes of {@code source}'s value, completed on the thread that completes
     * {@code source} (never the one that completes the answer from outside). Completing the answer
     * from outside (cancel) cancels {@code source}, which withdraws its request; a value
     * {@code source} brings once the answer is already complete is given to {@code drop} (which
     * closes the lease in it), never lost. A failure of {@code source} or of {@code fn} fails the
     * answer with its cause.
     */
    public static <T, R> CompletableFuture<R> map(CompletableFuture<T> source, Function<? super T, ? extends R> fn,
                                                  Consumer<? super T> drop) {
        CompletableFuture<R> answer = new CompletableFuture<>();
        source.whenComplete((value, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(unwrap(failure));
                return;
            }
            R mapped;
            try {
                mapped = fn.apply(value);
            } catch (RuntimeException | Error e) {
                answer.completeExceptionally(e);
                return;
            }
            if (!answer.complete(mapped) && value != null) {
                drop.accept(value);
            }
        });
        answer.whenComplete((value, failure) -> source.cancel(false)); // a no-op once source is complete
        return answer;
    }

    /** Closes a lease nobody takes any more; one already lost holds nothing, so its failure is dropped. */
    public static void closeQuietly(AutoCloseable lease) {
        try {
            lease.close();
        } catch (Exception ignored) {
            // Lost already, or the release did not reach the server: the hold ends with its lease.
        }
    }

    /** The cause a dependent stage wraps in a {@link CompletionException}. */
    public static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
