package dev.mortise.lock.spring.metrics;

import dev.mortise.lock.spring.LockAccess;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

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
 *
 * <p>The auto-configuration reports every {@code @DistributedLock} acquire to the
 * {@code LockObservations} bean (its own, or one the application defines): {@link #start} before
 * the acquire, {@link #stop} once it is granted or not. Thread-safe.
 */
public final class LockObservations {

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

    /**
     * Starts the observation of an acquire of {@code key} on {@code backend} by the lock named
     * {@code name} (the annotation's name or key expression) in {@code mode}; {@link #stop} ends it.
     */
    public Observation start(String name, LockAccess mode, String backend, String key) {
        return Observation.createNotStarted(NAME, LockAcquisitionContext::new, registry)
                .contextualName("lock " + name)
                .lowCardinalityKeyValue(LockMetrics.TAG_BACKEND, backend)
                .lowCardinalityKeyValue(LockMetrics.TAG_NAME, name)
                .lowCardinalityKeyValue(LockMetrics.TAG_MODE, mode.tag())
                .highCardinalityKeyValue(KEY, key)
                .start();
    }

    /**
     * Ends {@code observation} (from {@link #start}) with {@code outcome}, the value of the
     * meters' {@code outcome} tag: {@code acquired}, {@code busy}, {@code timeout} or
     * {@code error}, with the {@code failure} if the acquire failed.
     */
    public void stop(Observation observation, String outcome, @Nullable Throwable failure) {
        observation.lowCardinalityKeyValue(KeyValue.of(LockMetrics.TAG_OUTCOME, outcome));
        if (failure != null) {
            observation.error(failure);
        }
        observation.stop();
    }
}
