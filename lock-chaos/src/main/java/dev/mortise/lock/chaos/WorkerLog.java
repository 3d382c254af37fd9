package dev.mortise.lock.chaos;

import java.time.Instant;
import java.util.List;

/**
 * A {@link ChaosWorker}'s event lines on stdout,
 * {@code EV <epochMillis> <TYPE> <key> <token> <value> <monoNanos> <wallMicros>} (see
 * {@link ChaosWorker} for the fields), and the {@code isValid()} samples of the leases it holds.
 * Thread-safe: onLost callbacks and listeners log from other threads.
 */
final class WorkerLog {

    /** Interval of the validity samples during the critical section's sleep. */
    static final long SAMPLE_EVERY_MS = 50;

    private WorkerLog() {
    }

    /** One event line, timed now. */
    static void log(String type, String key, long token, long value) {
        long mono = System.nanoTime();
        log(mono, wallMicros(), type, key, token, value);
    }

    /** One event line; synchronized because onLost and listeners fire on other threads. */
    static synchronized void log(long mono, long wallMicros, String type, String key, long token, long value) {
        System.out.println("EV " + wallMicros / 1000 + " " + type + " " + ChaosKeys.encode(key) + " " + token + " "
                + value + " " + mono + " " + wallMicros);
        System.out.flush();
    }

    /** One VALID line per lease, with the times read before its {@code isValid()} call. */
    static void sample(List<Held> held) {
        for (Held h : held) {
            long mono = System.nanoTime();
            long wall = wallMicros();
            boolean valid = h.lease().isValid();
            log(mono, wall, "VALID", h.key(), h.token(), valid ? 1 : 0);
        }
    }

    /** The critical section: {@code csMillis} of sleep, sampled every {@value #SAMPLE_EVERY_MS} ms. */
    static void sleepSampled(List<Held> held, long csMillis) throws InterruptedException {
        sleepSampled(csMillis, () -> sample(held));
    }

    /** {@code csMillis} of sleep, {@code sample} run every {@value #SAMPLE_EVERY_MS} ms of it and at its end. */
    static void sleepSampled(long csMillis, Runnable sample) throws InterruptedException {
        long until = System.nanoTime() + csMillis * 1_000_000;
        for (long left = csMillis; left > 0; left = (until - System.nanoTime()) / 1_000_000) {
            Thread.sleep(Math.min(SAMPLE_EVERY_MS, left));
            sample.run();
        }
    }

    /** The wall clock in microseconds. */
    static long wallMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }
}
