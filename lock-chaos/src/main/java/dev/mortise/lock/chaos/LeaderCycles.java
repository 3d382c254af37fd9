package dev.mortise.lock.chaos;

import static dev.mortise.lock.chaos.WorkerLog.log;

import dev.mortise.lock.LeaderElection;
import dev.mortise.lock.LeadershipRevoked;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import java.util.OptionalLong;

/**
 * A {@link ChaosWorker}'s {@link Workload#LEADER} loop: one candidate of a leader election, running
 * cycles only while it leads, with its epoch as the token.
 */
final class LeaderCycles {

    /** Writes a {@link Workload#LEADER} term makes before its leader steps down, so a run without faults elects too. */
    static final int LEADER_WRITES_PER_TERM = 8;

    /** How often a candidate that does not lead looks whether it was elected (the failover time's resolution). */
    static final long LEADER_POLL_MS = 5;

    private LeaderCycles() {
    }

    /**
     * The {@link Workload#LEADER} loop until {@code endAt}: one candidate of group {@code chaos}
     * on the lock {@code key}. While {@code epoch()} says it leads it runs cycles of fenced read,
     * critical section ({@code csMillis}, sampled), fenced write, all with token = epoch; like the
     * basic workload it does not look at its leadership again before the write, so a leader
     * paused or cut past its lease writes with a stale epoch and the ledger must refuse it. The
     * grant is logged as ACQUIRED (token = epoch, value = the monotonic time just before it asked
     * for the epoch) by this thread when it first sees the epoch, before it reads; the term's end as LOST (revoked: lost) or RELEASED (stepped down,
     * closed) from the election's callback; WAIT when it contends (started, or revoked).
     */
    static void lead(LockClient locks, Ledger ledger, JdbcFenceGuard guard, String worker, String key,
                     long csMillis, boolean fenced, long endAt) throws Exception {
        LeaderElection election = locks.leadership("chaos").key(key)
                .onElected(epoch -> log("ELECTED", key, epoch, 0))
                .onRevoked(revoked -> {
                    boolean lost = revoked.reason() == LeadershipRevoked.Reason.LOST;
                    log(lost ? "LOST" : "RELEASED", key, revoked.epoch(), 0);
                    log("WAIT", key, 0, 0);
                })
                .start();
        log("WAIT", key, 0, 0);
        long lastEpoch = -1;
        int writesThisTerm = 0;
        try {
            while (System.nanoTime() - endAt < 0) {
                // Read before asking: the ACQUIRED line carries it, so the checker orders elections
                // only by windows that cannot overlap (ElectionRules.epochRegressions).
                long askedAt = System.nanoTime();
                OptionalLong leading = election.epoch();
                if (leading.isEmpty()) {
                    Thread.sleep(LEADER_POLL_MS);
                    continue;
                }
                long epoch = leading.getAsLong();
                if (epoch != lastEpoch) {
                    log("ACQUIRED", key, epoch, askedAt);
                    lastEpoch = epoch;
                    writesThisTerm = 0;
                }
                cycle(election, ledger, guard, worker, key, epoch, csMillis, fenced);
                if (++writesThisTerm >= LEADER_WRITES_PER_TERM && election.stepDown()) {
                    log("STEP_DOWN", key, epoch, 0);
                }
            }
        } finally {
            // Fires onRevoked (RELEASED) if leading, so the term's end is logged before END.
            election.close();
        }
    }

    /** One cycle of the term of {@code epoch}: fenced read, sampled critical section, fenced write. */
    private static void cycle(LeaderElection election, Ledger ledger, JdbcFenceGuard guard, String worker, String key,
                             long epoch, long csMillis, boolean fenced) throws InterruptedException {
        try {
            Ledger.Read read = guard != null ? ledger.readGuarded(guard, key, epoch) : ledger.read(key, epoch);
            log("READ", key, epoch, read.value());
            sampleLeader(election, key, epoch);
            WorkerLog.sleepSampled(csMillis, () -> sampleLeader(election, key, epoch));
            boolean accepted = guard != null
                    ? ledger.writeGuarded(guard, key, epoch, worker, read.value(), read.value() + 1, read.at())
                    : ledger.write(key, epoch, worker, read.value(), read.value() + 1, read.at(), fenced);
            log(accepted ? "WRITE_OK" : "WRITE_REJECTED", key, epoch, read.value() + 1);
            sampleLeader(election, key, epoch);
        } catch (Exception e) {
            // The ledger failed (not the lock server: it is not behind the faults' proxies).
            log("ERROR", key, epoch, 0);
            System.err.println("worker " + worker + " leading " + ChaosKeys.quoted(key) + ": " + e);
            Thread.sleep(100);
        }
    }

    /** One VALID line for the term of {@code epoch}: 1 only while the election still leads with that epoch. */
    private static void sampleLeader(LeaderElection election, String key, long epoch) {
        long mono = System.nanoTime();
        long wall = WorkerLog.wallMicros();
        // epoch(), not isLeader(): true only for this term, not for a later term of the same candidate.
        boolean valid = election.epoch().orElse(-1) == epoch;
        log(mono, wall, "VALID", key, epoch, valid ? 1 : 0);
    }
}
