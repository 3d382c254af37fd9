package dev.mortise.lock.bench.common;

/**
 * Many leases held at once under a library's watchdog: how many renewal requests reach the
 * server per renewal period, and the client heap each held lease costs.
 *
 * @param renewCallsPerPeriod renewal calls the core made to the backend per period (-1: not observable)
 * @param serverCommandsPerPeriod requests the server counted per period while the leases were held, minus
 *                                the idle baseline (-1: not counted)
 * @param serverBaselinePerPeriod requests per period with the same client open and nothing held (background)
 */
public record ManyLeasesResult(String group, String id, String label, int leases, double periodSeconds,
                               double renewCallsPerPeriod, double serverCommandsPerPeriod,
                               double serverBaselinePerPeriod, double heapBytesPerLease, double acquireSeconds) {
}
