package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.Permits;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * What a native semaphore needs from the core: one permit hold per acquisition, and the count
 * stored on the server. The core hands its implementation to {@link Semaphores#nativeSemaphore},
 * so this package never names the core's classes. Implementations are thread-safe.
 */
public interface PermitHolds {

    /** The backend's name, as in exception messages. */
    String backendName();

    /**
     * One SHARED hold of {@code key} taking {@code permits.count()} permits, owned by {@code owner}:
     * an ordinary hold of the core from then on (validity, watchdog renewal or the explicit
     * {@code lease}, {@code onLost}, release).
     *
     * @param lease the explicit lease, or null for the client's default, renewed
     * @return the lease, or null if not granted within {@code wait}
     * @throws dev.mortise.lock.PermitCountMismatchException if the server keeps another count
     */
    LockLease acquire(String key, Permits permits, Duration wait, Duration lease, String owner);

    /**
     * {@link #acquire} without a thread waiting, on the core's asynchronous path: completed with the
     * lease, null if not granted within {@code wait}, or exceptionally with what {@code acquire}
     * throws; never on the calling thread. Cancelling it withdraws the request (a grant racing the
     * cancel is released).
     */
    CompletableFuture<LockLease> acquireAsync(String key, Permits permits, Duration wait, Duration lease, String owner);

    /** {@link dev.mortise.lock.spi.LockBackend#setPermits}, its failures named. */
    void setPermits(String key, int limit);
}
