package dev.mortise.lock.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.AsyncWaits;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.Permits;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The entry of {@code acquireAsync}: checks the arguments as {@link Acquirer} does, nests an explicit
 * owner's request in its hold, and otherwise starts one {@link AsyncAcquire}, keeping track of those
 * under way so that {@link #close()} stops them. Answers are never completed on the caller's thread:
 * even an argument error or a nested lease is handed over on {@link AsyncWaits#executor()}.
 * Thread-safe.
 */
final class AsyncAcquirer {

    private final Acquirer acquirer;
    private final KeyGates gates;
    private final LockBackend backend;
    private final ClientSettings settings;
    private final String backendName;
    private final Set<AsyncAcquire> running = ConcurrentHashMap.newKeySet();

    AsyncAcquirer(Acquirer acquirer, KeyGates gates, LockBackend backend, ClientSettings settings, String backendName) {
        this.acquirer = acquirer;
        this.backendName = backendName;
        this.gates = gates;
        this.backend = backend;
        this.settings = settings;
    }

    /** Acquires as {@code spec} says, without a thread waiting (see {@link #attempt(String, Duration, Duration, String, LockMode, boolean)}). */
    CompletableFuture<LockLease> attempt(dev.mortise.lock.LockSpec spec, boolean throwOnTimeout) {
        if (spec == null) {
            return CompletableFuture.supplyAsync(() -> {
                throw new IllegalArgumentException("LockSpec must not be null (backend '" + backendName + "')");
            }, AsyncWaits.executor());
        }
        return attempt(spec.key(), spec.waitTime(), spec.explicitLease(), spec.explicitOwner(), spec.lockMode(),
                throwOnTimeout);
    }

    /**
     * Acquires {@code requestedKey} in {@code mode} without a thread waiting.
     *
     * @return the lease; null when not granted in time and {@code throwOnTimeout} is false; or
     *         completed exceptionally as {@link Acquirer#attempt} throws
     */
    CompletableFuture<LockLease> attempt(String requestedKey, Duration requestedWait, Duration requestedLease,
                                         String requestedOwner, LockMode mode, boolean throwOnTimeout) {
        return attempt(requestedKey, requestedWait, requestedLease, requestedOwner, mode, null, throwOnTimeout);
    }

    /**
     * As {@link #attempt(String, Duration, Duration, String, LockMode, boolean)}, for a semaphore
     * acquisition when {@code permits} is not null: the asynchronous form of
     * {@link Acquirer#attempt(String, Duration, Duration, String, LockMode, Permits, boolean)}.
     */
    CompletableFuture<LockLease> attempt(String requestedKey, Duration requestedWait, Duration requestedLease,
                                         String requestedOwner, LockMode mode, Permits permits,
                                         boolean throwOnTimeout) {
        CompletableFuture<LockLease> answer = new CompletableFuture<>();
        AsyncWaits.executor().execute(() -> {
            try {
                Acquisition a = acquirer.check(requestedKey, requestedWait, requestedLease, requestedOwner, mode, permits,
                        throwOnTimeout, null);
                LockLease nested = a.ownerId() == null ? null : acquirer.nestIfOwned(a.key(), null, a.ownerId(), mode, 0);
                if (nested != null) {
                    if (!answer.complete(nested)) {
                        nested.close();
                    }
                    return;
                }
                AsyncAcquire acquire = new AsyncAcquire(acquirer, gates, backend, settings, a, answer);
                running.add(acquire);
                answer.whenComplete((lease, failure) -> running.remove(acquire));
                if (acquirer.isClosed()) {
                    throw acquirer.clientClosed(a.key(), null);
                }
                acquire.start();
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        });
        return answer;
    }

    /**
     * Fails every acquire under way as the client closes (on the executor, not the closing thread,
     * which must not run the callers' stages); each withdraws from where it waits.
     */
    void close() {
        for (AsyncAcquire acquire : running) {
            AsyncWaits.executor().execute(() ->
                    acquire.answer.completeExceptionally(acquirer.clientClosed(acquire.key(), null)));
        }
    }
}
