package dev.mortise.lock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a client's deadlock detection sees now ({@link LockClient#deadlocks()}): its waits longer than
 * the threshold that it publishes, and the last cycles it found. For the actuator and diagnostics.
 * Immutable and thread-safe.
 *
 * @param detection the client's setting
 * @param waits     this client's waits published now (longer than the threshold, with other locks held)
 * @param recent    the last cycles this client found and confirmed, newest last (at most 16)
 * @param found     how many cycles this client has found since it was built
 */
public record DeadlockReport(DeadlockDetection detection, List<LongWait> waits, List<DeadlockCycle> recent,
                             long found) {

    public DeadlockReport {
        Objects.requireNonNull(detection, "detection");
        waits = List.copyOf(waits);
        recent = List.copyOf(recent);
    }

    /**
     * One published wait.
     *
     * @param key       the key waited for
     * @param mode      the mode asked for
     * @param waited    how long it has waited
     * @param holderIds the holder ids of the locks its owner holds meanwhile
     */
    public record LongWait(String key, LockMode mode, Duration waited, List<String> holderIds) {
        public LongWait {
            holderIds = List.copyOf(holderIds);
        }
    }
}
