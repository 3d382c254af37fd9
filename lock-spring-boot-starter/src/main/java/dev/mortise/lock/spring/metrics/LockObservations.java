package dev.mortise.lock.spring.metrics;

import dev.mortise.lock.spring.internal.LockObserver;
import dev.mortise.lock.spring.internal.LockOperation;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Micrometer Observation of {@code @DistributedLock} calls (a span per locked call, when
 * tracing is set up): observation {@value #NAME}, from the start of the acquisition to
 * the release, with an {@code acquired} event when the lock is granted.
 *
 * <p>Low-cardinality keys: {@code backend}, {@code name}, {@code outcome}. The evaluated
 * key is a high-cardinality key ({@code mortise.lock.key}): spans carry it, metrics
 * derived from observations do not.
 */
public final class LockObservations implements LockObserver {

    /** The observation name. */
    public static final String NAME = "mortise.lock";
    /** The high-cardinality key carrying the evaluated lock key. */
    public static final String KEY = "mortise.lock.key";

    private final ObservationRegistry registry;

    public LockObservations(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Acquisition acquiring(LockOperation operation, String backend, String key) {
        Observation observation = Observation.createNotStarted(NAME, registry)
                .contextualName("lock " + operation.name())
                .lowCardinalityKeyValue(LockMetrics.TAG_BACKEND, backend)
                .lowCardinalityKeyValue(LockMetrics.TAG_NAME, operation.name())
                .highCardinalityKeyValue(KEY, key)
                .start();
        return new Acquisition() {
            @Override
            public void notAcquired(Outcome outcome, Throwable failure) {
                observation.lowCardinalityKeyValue(KeyValue.of(LockMetrics.TAG_OUTCOME, outcome.tag()));
                if (failure != null) {
                    observation.error(failure);
                }
                observation.stop();
            }

            @Override
            public Runnable acquired() {
                observation.lowCardinalityKeyValue(KeyValue.of(LockMetrics.TAG_OUTCOME, Outcome.ACQUIRED.tag()));
                observation.event(Observation.Event.of("acquired"));
                return observation::stop;
            }
        };
    }
}
