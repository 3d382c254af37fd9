package dev.mortise.lock.bench.common;


/**
 * One subject's uncontended acquire+release cycle at one thread count. Latencies in µs;
 * {@code allocatedBytesPerCycle} is the whole JVM's heap allocation during the measured windows
 * divided by the cycles (NaN if the JVM cannot tell).
 */
public record UncontendedResult(String group, String id, String label, Role role, int threads, long cycles,
                                double seconds, double p50, double p99, double opsPerSecond,
                                double allocatedBytesPerCycle) {
}
