package dev.mortise.lock;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.Ticker;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The implementation behind this package's entry points: {@link LockClientBuilder#build()},
 * {@link LeaderElectionBuilder#start()} and {@link LockContext}. The API finds it with
 * {@link java.util.ServiceLoader} instead of naming it, so that the API depends on nothing but the
 * SPI and the implementation ({@code dev.mortise.lock.internal}) on the API, never the other way
 * round. lock-api registers its one provider in {@code META-INF/services/dev.mortise.lock.CoreProvider}.
 *
 * <p>Not for users or backend writers: lock-api's core is its only implementation, and this
 * interface may change in any release. Implementations are thread-safe.
 */
public interface CoreProvider {

    /**
     * A client over {@code backend} with settings {@link LockClientBuilder} has validated, as
     * {@link LockClientBuilder#build()} documents it.
     */
    LockClient newClient(LockBackend backend, Duration defaultLease, double driftFactor, Duration driftAllowance,
                         int maxKeyBytes, List<LockListener> listeners, Ticker ticker);

    /** As the form without it, detecting deadlocks as {@code deadlocks} says; the default ignores it. */
    default LockClient newClient(LockBackend backend, Duration defaultLease, double driftFactor,
                                 Duration driftAllowance, int maxKeyBytes, List<LockListener> listeners, Ticker ticker,
                                 DeadlockDetection deadlocks) {
        return newClient(backend, defaultLease, driftFactor, driftAllowance, maxKeyBytes, listeners, ticker);
    }

    /** A started candidate, as {@link LeaderElectionBuilder#start()} documents it. */
    LeaderElection startElection(LockClient client, String group, String key, List<LeadershipListener> listeners,
                                 Duration retryPause, Duration stepDownPause);

    /** {@link LockContext#current()}. */
    Optional<LockLease> currentLease();

    /** {@link LockContext#find(String)}. */
    Optional<LockLease> findLease(String key);

    /** {@link LockContext#all()}. */
    List<LockLease> threadLeases();
}
