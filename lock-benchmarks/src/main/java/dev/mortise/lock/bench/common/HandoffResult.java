package dev.mortise.lock.bench.common;


/**
 * One subject's contended handoff on one key, threads split over two JVMs: the time from the
 * start of a release to the grant of an owner that was already waiting, in µs, over all
 * handoffs and over those that crossed from one JVM to the other. The grants of each JVM show
 * how evenly the lock was shared.
 */
public record HandoffResult(String group, String id, String label, Role role, int threads, long grants,
                            long grantsJvm0, long grantsJvm1, int handoffs, double p50, double p99,
                            int crossHandoffs, double crossP50, double crossP99) {
}
