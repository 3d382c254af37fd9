package dev.mortise.lock;

/**
 * Work without a result run under a lock by {@link LockClient#run}.
 *
 * @param <X> what the work may throw
 */
@FunctionalInterface
public interface LockRunnable<X extends Throwable> {
    void run() throws X;
}
