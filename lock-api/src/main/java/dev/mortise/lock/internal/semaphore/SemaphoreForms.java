package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.PermitLease;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The acquire forms both semaphores share, each one line over the semaphore's own two ways to take
 * n permits: {@link #take} (blocking) and {@link #takeAsync} (without a waiting thread). The
 * blocking forms check an explicit lease on the caller's thread; the asynchronous ones leave it to
 * {@code takeAsync}, which fails the future with what a check throws.
 */
abstract class SemaphoreForms implements LockSemaphore {

    /** The backend's name, as in exception messages. */
    abstract String backendName();

    /**
     * Takes n permits, waiting up to {@code wait}; {@code lease} null for the client's renewed one.
     *
     * @return the permits, or empty if not free in time and {@code throwOnTimeout} is false
     */
    abstract Optional<PermitLease> take(int n, Duration wait, Duration lease, boolean throwOnTimeout);

    /** {@link #take} without a thread waiting; never completed on the caller's thread. */
    abstract CompletableFuture<Optional<PermitLease>> takeAsync(int n, Duration wait, Duration lease,
                                                                boolean throwOnTimeout);

    @Override
    public PermitLease acquire(int n, Duration wait) {
        return take(n, wait, null, true).orElseThrow();
    }

    @Override
    public PermitLease acquire(int n, Duration wait, Duration lease) {
        return take(n, wait, SlotSemaphore.checkLease(backendName(), name(), lease), true).orElseThrow();
    }

    @Override
    public Optional<PermitLease> tryAcquire(int n, Duration wait) {
        return take(n, wait, null, false);
    }

    @Override
    public Optional<PermitLease> tryAcquire(int n, Duration wait, Duration lease) {
        return take(n, wait, SlotSemaphore.checkLease(backendName(), name(), lease), false);
    }

    @Override
    public CompletableFuture<PermitLease> acquireAsync(int n, Duration wait) {
        return AsyncPermits.orTimeout(takeAsync(n, wait, null, true));
    }

    @Override
    public CompletableFuture<PermitLease> acquireAsync(int n, Duration wait, Duration lease) {
        return AsyncPermits.orTimeout(takeAsync(n, wait, lease, true));
    }

    @Override
    public CompletableFuture<Optional<PermitLease>> tryAcquireAsync(int n, Duration wait) {
        return takeAsync(n, wait, null, false);
    }

    @Override
    public CompletableFuture<Optional<PermitLease>> tryAcquireAsync(int n, Duration wait, Duration lease) {
        return takeAsync(n, wait, lease, false);
    }
}
