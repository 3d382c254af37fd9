package dev.mortise.lock.spring.autoconfigure;

import dev.mortise.lock.spring.internal.LockObserver;
import dev.mortise.lock.spring.internal.LockOperation;
import dev.mortise.lock.spring.metrics.LockObservations;
import io.micrometer.observation.Observation;

/**
 * Reports the engine's {@code @DistributedLock} acquires to a {@link LockObservations} bean (the
 * auto-configured one or the application's own): one observation per acquire, stopped with its
 * outcome. Thread-safe.
 */
record LockObservationsObserver(LockObservations observations) implements LockObserver {

    @Override
    public Acquisition acquiring(LockOperation operation, String backend, String key) {
        Observation observation = observations.start(operation.name(), operation.mode(), backend, key);
        return new Acquisition() {
            @Override
            public void notAcquired(Outcome outcome, Throwable failure) {
                observations.stop(observation, outcome.tag(), failure);
            }

            @Override
            public Runnable acquired() {
                observations.stop(observation, Outcome.ACQUIRED.tag(), null);
                return () -> { };
            }
        };
    }
}
