package dev.mortise.lock.chaos;

import java.util.List;

/**
 * Figures of a run that only some faults are judged by, next to {@link RunResult}'s.
 *
 * @param victimsRecovered victims that were granted a lock again after their fault ended
 *                         (silent-partition: the cut worker must recover after the heal)
 * @param leasesLost       LOST events of the run, every worker (client-clock-jump: must be 0,
 *                         no fault takes a lease there)
 * @param acquireMillis    per grant, millis from the worker's WAIT to its ACQUIRED (what a
 *                         cycle pays for the lock, contention included), in the order granted
 * @param wallSkewMillis   the largest distance, either way, between a worker's own wall clock
 *                         and the machine's at an event (client-clock-jump: proof the clocks jumped)
 * @param elections        leader workload: terms the candidates saw themselves elected in (ACQUIRED
 *                         events, token = epoch); must be positive ({@link Workload#LEADER}), else 0
 * @param epochRegressions leader workload: elections whose epoch was not above that of an election
 *                         seen before them ({@link ElectionRules#epochRegressions}; must be 0)
 * @param writesOutOfEpochOrder leader workload: writes the ledger accepted with an epoch below one
 *                         it had accepted before ({@link ElectionRules#writesOutOfEpochOrder}; must be 0)
 * @param deadlockVictims  deadlock workload: waits ended as a deadlock's victim, else 0
 * @param falseVictims     deadlock workload: victims of a cycle the run's history does not show
 *                         ({@link DeadlockRules#falseVictims}; must be 0)
 */
public record FaultFigures(long victimsRecovered, long leasesLost, List<Long> acquireMillis, long wallSkewMillis,
                           long elections, long epochRegressions, long writesOutOfEpochOrder, long deadlockVictims,
                           long falseVictims) {

    /** Without the deadlock workload's figures. */
    public FaultFigures(long victimsRecovered, long leasesLost, List<Long> acquireMillis, long wallSkewMillis,
                        long elections, long epochRegressions, long writesOutOfEpochOrder) {
        this(victimsRecovered, leasesLost, acquireMillis, wallSkewMillis, elections, epochRegressions,
                writesOutOfEpochOrder, 0, 0);
    }

    /** No figures: runs checked before these existed, hand-made results. */
    public static final FaultFigures NONE = new FaultFigures(0, 0, List.of(), 0);

    /** Without the leader workload's figures (any other workload). */
    public FaultFigures(long victimsRecovered, long leasesLost, List<Long> acquireMillis, long wallSkewMillis) {
        this(victimsRecovered, leasesLost, acquireMillis, wallSkewMillis, 0, 0, 0);
    }

    /** Without the wall-clock skew (a run whose workers' clocks do not jump). */
    public FaultFigures(long victimsRecovered, long leasesLost, List<Long> acquireMillis) {
        this(victimsRecovered, leasesLost, acquireMillis, 0);
    }

    public FaultFigures {
        acquireMillis = List.copyOf(acquireMillis);
    }

    /** The p-th percentile (nearest rank) of the acquire times, or -1 when there were none. */
    public long acquirePercentile(double p) {
        if (acquireMillis.isEmpty()) {
            return -1;
        }
        List<Long> sorted = acquireMillis.stream().sorted().toList();
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }
}
