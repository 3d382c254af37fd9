package dev.mortise.lock.redis.internal.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The replies of one Redlock round: the same request sent to every node at once, each
 * answer (or failure) kept in node order, every node bounded by the same short timeout,
 * so a dead node costs at most that timeout and never blocks the others.
 *
 * @param <T> what a node answers
 */
final class NodeReplies<T> {

    private final List<T> values;
    private final List<Throwable> failures;

    private NodeReplies(List<T> values, List<Throwable> failures) {
        this.values = values;
        this.failures = failures;
    }

    /** Starts {@code call} on each node and waits (uninterruptibly, at most {@code timeout}) for all. */
    public static <N, T> NodeReplies<T> gather(List<N> nodes, Function<N, CompletableFuture<T>> call, Duration timeout) {
        List<CompletableFuture<T>> futures = new ArrayList<>(nodes.size());
        for (N node : nodes) {
            CompletableFuture<T> future;
            try {
                future = call.apply(node);
            } catch (RuntimeException e) {
                future = CompletableFuture.failedFuture(e);
            }
            futures.add(future.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS));
        }
        List<T> values = new ArrayList<>(nodes.size());
        List<Throwable> failures = new ArrayList<>(nodes.size());
        for (CompletableFuture<T> future : futures) {
            try {
                values.add(future.join());
                failures.add(null);
            } catch (CompletionException | java.util.concurrent.CancellationException e) {
                values.add(null);
                failures.add(e.getCause() == null ? e : e.getCause());
            }
        }
        return new NodeReplies<>(values, failures);
    }

    public int size() {
        return values.size();
    }

    /** Whether node {@code i} answered. */
    public boolean answered(int i) {
        return failures.get(i) == null;
    }

    /** Node {@code i}'s answer, or null if it failed. */
    public T value(int i) {
        return values.get(i);
    }

    public int answeredCount() {
        return (int) failures.stream().filter(f -> f == null).count();
    }

    /** The first failure, for messages; null if every node answered. */
    public Throwable firstFailure() {
        return failures.stream().filter(f -> f != null).findFirst().orElse(null);
    }
}
