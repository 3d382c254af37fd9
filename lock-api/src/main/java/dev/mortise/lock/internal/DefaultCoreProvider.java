package dev.mortise.lock.internal;

import dev.mortise.lock.CoreProvider;
import dev.mortise.lock.LeaderElection;
import dev.mortise.lock.LeadershipListener;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockListener;
import dev.mortise.lock.internal.leader.Candidate;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.Ticker;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * lock-api's {@link CoreProvider}: {@link DefaultLockClient}, {@link Candidate} and
 * {@link ThreadLeases} behind the API's entry points. Public only for {@link java.util.ServiceLoader},
 * which lists it in {@code META-INF/services/dev.mortise.lock.CoreProvider}. Stateless; thread-safe.
 */
public final class DefaultCoreProvider implements CoreProvider {

    /** For {@link java.util.ServiceLoader}. */
    public DefaultCoreProvider() {
    }

    @Override
    public LockClient newClient(LockBackend backend, Duration defaultLease, double driftFactor, Duration driftAllowance,
                                int maxKeyBytes, List<LockListener> listeners, Ticker ticker) {
        return new DefaultLockClient(backend, new ClientSettings(defaultLease, driftFactor, driftAllowance,
                maxKeyBytes, listeners, ticker));
    }

    @Override
    public LockClient newClient(LockBackend backend, Duration defaultLease, double driftFactor, Duration driftAllowance,
                                int maxKeyBytes, List<LockListener> listeners, Ticker ticker,
                                dev.mortise.lock.DeadlockDetection deadlocks) {
        return new DefaultLockClient(backend, new ClientSettings(defaultLease, driftFactor, driftAllowance,
                maxKeyBytes, listeners, ticker, deadlocks));
    }

    @Override
    public LeaderElection startElection(LockClient client, String group, String key,
                                        List<LeadershipListener> listeners, Duration retryPause,
                                        Duration stepDownPause) {
        return Candidate.start(client, group, key, listeners, retryPause, stepDownPause);
    }

    @Override
    public Optional<LockLease> currentLease() {
        return ThreadLeases.current();
    }

    @Override
    public Optional<LockLease> findLease(String key) {
        return ThreadLeases.find(key);
    }

    @Override
    public List<LockLease> threadLeases() {
        return ThreadLeases.all();
    }
}
