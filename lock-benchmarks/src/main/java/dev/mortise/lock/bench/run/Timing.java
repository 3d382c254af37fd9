package dev.mortise.lock.bench.run;

import java.time.Duration;

/**
 * How long each part of a run lasts. {@link #fullRun()} is the documented run;
 * {@link #smokeRun()} only checks that the harness works (smoke test, development).
 * {@code keySetMeasure} is the measured time per subject of the read-write and multi-key
 * scenarios (split over {@code rounds}), which need longer than the uncontended cycle for
 * their contended tails to settle.
 */
public record Timing(Duration warmup, Duration measure, int rounds, Duration handoff, int leases,
                     Duration leasePeriod, int periods, boolean smoke, Duration keySetMeasure) {

    public static Timing fullRun() {
        return new Timing(Duration.ofMillis(3000), Duration.ofMillis(4000), 2, Duration.ofSeconds(4), 10_000,
                Duration.ofSeconds(1), 3, false, Duration.ofSeconds(12));
    }

    public static Timing smokeRun() {
        return new Timing(Duration.ofMillis(200), Duration.ofMillis(300), 1, Duration.ofMillis(800), 200,
                Duration.ofMillis(300), 2, true, Duration.ofMillis(300));
    }
}
