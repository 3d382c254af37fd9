package dev.mortise.lock.spring.metrics;

import dev.mortise.lock.spring.internal.LockObserver;
import dev.mortise.lock.spring.internal.LockOperation;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * A Micrometer Observation per {@code @DistributedLock} acquire (a tracing span of the
 * wait, when tracing is set up): observation {@value #NAME}, from the start of the
 * acquire until it is granted, found busy, timed out or failed.
 *
 * <p>Low-cardinality keys, the same as the meters' tags: {@code backend}, {@code name},
 * {@code mode}, {@code outcome}. The evaluated key (for a multi-key lock, its keys as text) is
 * a high-cardinality key ({@value #KEY}): spans carry it, metrics never do. Its context is a {@link LockAcquisitionContext}, for which
 * {@link LockObservationMeterHandler} makes Spring Boot derive no meters: the meters are
 * {@link LockMetrics}' alone, one set for annotated and programmatic locks.
 */
public final class LockObservations implements LockObserver {

    /** The observation name. */
    public static final String NAME = "mortise.lock.acquisition";
    /** The high-cardinality key carrying the evaluated lock key. */
    public static final String KEY = "mortise.lock.key";

    private final ObservationRegistry registry;

    public LockObservations(ObservationRegistry registry) {
        this.registry = registry;
    }

    /** The context of lock acquisition observations. */
    public static final class LockAcquisitionContext extends Observation.Context {
    }

    @Override
    public Acquisition acquiring(LockOperation operation, String backend, String key) {
        Observation observation = Observation.createNotStarted(NAME, LockAcquisitionContext::new, registry)
                .contextualName("lock " + operation.name())
                .lowCardinalityKeyValue(LockMetrics.TAG_BACKEND, backend)
                .lowCardinalityKeyValue(LockMetrics.TAG_NAME, operation.name())
                .lowCardinalityKeyValue(LockMetrics.TAG_MODE, operation.mode().tag())
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
                observation.stop();
                return () -> { };
            }
        };
    }
}
