package dev.mortise.lock.bench.common;

/**
 * Deadlocks broken: two processes in a two-wait cycle, round after round; the time from the start
 * of the younger wait until it ends with {@code LockDeadlockException}.
 *
 * @param rounds       cycles made
 * @param broken       rounds that ended with the younger wait the victim (the others are findings)
 * @param thresholdMs  the detection setting's threshold
 * @param periodMs     the detection setting's period
 * @param medianMillis median time to the exception over the broken rounds
 * @param maxMillis    the longest of them
 */
public record CycleBreakResult(String group, int rounds, int broken, long thresholdMs, long periodMs,
                               double medianMillis, double maxMillis) {
}
