package dev.mortise.lock.spring.metrics;

import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.Observation;

/**
 * Takes the lock acquisition observations ({@link LockObservations.LockAcquisitionContext})
 * so that Micrometer's default meter handler derives no timer from them: Spring Boot puts
 * the {@code MeterObservationHandler} beans, in order, in one first-matching handler, and
 * this one is first for those contexts. The lock meters come from {@link LockMetrics}
 * (one coherent set, also for programmatic locks), not from the spans.
 */
public final class LockObservationMeterHandler implements MeterObservationHandler<Observation.Context> {

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof LockObservations.LockAcquisitionContext;
    }
}
