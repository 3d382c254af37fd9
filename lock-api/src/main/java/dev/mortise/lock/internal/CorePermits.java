package dev.mortise.lock.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.internal.semaphore.PermitHolds;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.Permits;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * The core's side of the native semaphore's seam: permit holds are ordinary holds of the
 * {@link Acquirer} (of the {@link AsyncAcquirer} for the asynchronous forms), and the stored count is the backend's {@link LockBackend#setPermits}.
 * Thread-safe.
 */
final class CorePermits implements PermitHolds {

    private final Acquirer acquirer;
    private final AsyncAcquirer async;
    private final LockBackend backend;
    private final String backendName;
    private final Arguments arguments;
    private final BooleanSupplier closed;

    CorePermits(Acquirer acquirer, AsyncAcquirer async, LockBackend backend, Arguments arguments,
                BooleanSupplier closed) {
        this.acquirer = acquirer;
        this.async = async;
        this.backend = backend;
        this.backendName = backend.name();
        this.arguments = arguments;
        this.closed = closed;
    }

    @Override
    public String backendName() {
        return backendName;
    }

    @Override
    public LockLease acquire(String key, Permits permits, Duration wait, Duration lease, String owner) {
        return acquirer.attempt(key, wait, lease, owner, LockMode.SHARED, permits, false);
    }

    @Override
    public CompletableFuture<LockLease> acquireAsync(String key, Permits permits, Duration wait, Duration lease,
                                                    String owner) {
        return async.attempt(key, wait, lease, owner, LockMode.SHARED, permits, false);
    }

    @Override
    public void setPermits(String key, int limit) {
        String checked = arguments.key(key);
        if (closed.getAsBoolean()) {
            throw new IllegalStateException("LockClient for backend '" + backendName + "' is closed; cannot change "
                    + "the permits of '" + Arguments.abbreviate(checked) + "'. Build a new client.");
        }
        try {
            backend.setPermits(checked, limit);
        } catch (LockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockBackendException("Backend '" + backendName + "' could not set the permit count of '"
                    + Arguments.abbreviate(checked) + "' to " + limit + ": " + e
                    + ". Check that the server is reachable and call setPermits again.", checked, backendName, e);
        }
    }
}
