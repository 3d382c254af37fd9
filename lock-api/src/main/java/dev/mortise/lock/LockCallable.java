package dev.mortise.lock;

/**
 * Work run under a lock by {@link LockClient#call}. May throw a checked exception,
 * which reaches the caller unchanged after the lock is released.
 *
 * @param <T> the result
 * @param <X> what the work may throw
 */
@FunctionalInterface
public interface LockCallable<T, X extends Throwable> {
    T call() throws X;
}
