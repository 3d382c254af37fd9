package dev.mortise.lock.chaos;

import java.util.List;

/**
 * The measured figures of one backend × fault run.
 *
 * @param faultsInjected       faults actually injected (a victim must be caught in its critical section)
 * @param writeAttempts        writes the ledger logged (accepted + rejected)
 * @param staleWritesAttempted writes the ledger rejected because a higher token had been seen
 * @param staleWritesAccepted  writes accepted although a higher token had been seen (must be 0)
 * @param lostUpdates          increments lost or duplicated in the ledger (must be 0)
 * @param overlaps             pairs of critical sections on one key that overlapped in time:
 *                             what would have corrupted the ledger without fencing
 * @param onLostFired          paused holders whose {@code onLost} fired for the paused lease
 * @param pausedWritesRejected paused holders whose write after SIGCONT the ledger rejected
 * @param takeoverMillis       fault to next grant of the key to another worker, where measured
 * @param orphans              locks still held on the server a lease after every worker ended
 *                             (must be 0), or -1 where not checked
 * @param reusedTokens         grants whose (key, token) had been granted before (must be 0)
 */
public record RunResult(String backend, Fault fault, int seconds, int workers, long faultsInjected,
                        long writeAttempts, long acceptedWrites, long staleWritesAttempted,
                        long staleWritesAccepted, long lostUpdates, long overlaps, long onLostFired,
                        long pausedWritesRejected, List<Long> takeoverMillis, long orphans, long reusedTokens) {

    /** True when nothing unsafe was seen: no stale write accepted, no lost update, no token granted twice. */
    public boolean safe() {
        return staleWritesAccepted == 0 && lostUpdates == 0 && reusedTokens == 0;
    }

    /** True when the run is safe and left no orphaned lock (where that was checked). */
    public boolean passed() {
        return safe() && orphans <= 0;
    }

    /** The p-th percentile (nearest rank) of the takeover times, or -1 when none was measured. */
    public long takeoverPercentile(double p) {
        if (takeoverMillis.isEmpty()) {
            return -1;
        }
        List<Long> sorted = takeoverMillis.stream().sorted().toList();
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    /** One JSON object; hand-written to keep the module free of a JSON library. */
    public String toJson() {
        return "{\"backend\":\"" + backend + "\",\"fault\":\"" + fault.label() + "\",\"seconds\":" + seconds
                + ",\"workers\":" + workers + ",\"faultsInjected\":" + faultsInjected
                + ",\"writeAttempts\":" + writeAttempts + ",\"acceptedWrites\":" + acceptedWrites
                + ",\"staleWritesAttempted\":" + staleWritesAttempted + ",\"staleWritesAccepted\":" + staleWritesAccepted
                + ",\"lostUpdates\":" + lostUpdates + ",\"overlapsWithoutFencing\":" + overlaps
                + ",\"onLostFired\":" + onLostFired + ",\"pausedWritesRejected\":" + pausedWritesRejected
                + ",\"takeoverMillis\":" + takeoverMillis + ",\"orphans\":" + orphans + ",\"reusedTokens\":" + reusedTokens + ",\"safe\":" + safe() + "}";
    }
}
