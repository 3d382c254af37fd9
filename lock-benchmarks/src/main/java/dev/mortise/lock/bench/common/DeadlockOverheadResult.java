package dev.mortise.lock.bench.common;

/**
 * Contended nested locks that never deadlock, with deadlock detection on or off: what detection
 * costs the waits it watches but finds nothing in.
 *
 * @param detection        {@code on} (the default setting) or {@code off}
 * @param processes        client processes (JVMs; clients in one JVM for the in-process backend)
 * @param threads          threads in all, shared out over the processes
 * @param keys             keys the threads take two at a time, in one order everywhere
 * @param holdMillis       how long an operation holds its two keys
 * @param seconds          measured time
 * @param ops              operations done (both keys taken, held, let go)
 * @param opsPerSecond     {@code ops / seconds}
 * @param acquireP50Millis median time of one acquire (either of the two)
 * @param acquireP99Millis 99th percentile of it
 * @param publishes        wait records published (waits that outlasted the threshold holding the other key)
 * @param requests         detection requests that reached the server: publishes, removes, record reads, inspections
 * @param requestsPerSecond {@code requests / seconds}
 */
public record DeadlockOverheadResult(String group, String detection, int processes, int threads, int keys,
                                     long holdMillis, double seconds, long ops, double opsPerSecond,
                                     double acquireP50Millis, double acquireP99Millis, long publishes, long requests,
                                     double requestsPerSecond) {
}
