package dev.mortise.lock.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the ledger, its log and the workers' events after a run and computes the safety
 * figures of one backend × fault. It judges only from what was recorded: the ledger log
 * (PostgreSQL's clock) and the worker events (the workers' clocks, the same machine's).
 *
 * <p>The rules are one class per family: the ledger's log ({@link LedgerLogRules}), leader
 * elections ({@link ElectionRules}), deadlock victims ({@link DeadlockRules}), exclusive holds ({@link HoldRules}; {@link ModeRules} for
 * holds that may coexist) and the faults' victims ({@link VictimRules}).
 */
public final class LedgerChecker {

    /** One row of the ledger's log: a write attempt, accepted or not, as PostgreSQL logged it. */
    record LogRow(long id, String key, String worker, long token, long valueRead, long valueWritten,
                  boolean accepted, long writtenAt) {
    }

    private LedgerChecker() {
    }

    /**
     * Computes the figures; the connection is the ledger's.
     *
     * @param server  the lock server as run, for the report
     * @param leaseMs the workers' lease: takeovers are measured only where the grantee was
     *                already waiting before the victim's lease could have run out
     */
    public static RunResult check(String backend, Fault fault, String server, int seconds, int workers, long leaseMs,
                                  Connection ledger, List<WorkerEvent> events, List<InjectedFault> faults,
                                  long orphans) throws SQLException {
        return check(backend, fault, Workload.BASIC, 0, List.of(), server, seconds, workers, leaseMs, ledger, events,
                faults, orphans);
    }

    /**
     * As above for a run of {@code workload} on the {@code keys} drawn from {@code seed}.
     */
    public static RunResult check(String backend, Fault fault, Workload workload, long seed, List<String> keys,
                                  String server, int seconds, int workers, long leaseMs,
                                  Connection ledger, List<WorkerEvent> events, List<InjectedFault> faults,
                                  long orphans) throws SQLException {
        List<LogRow> log = readLog(ledger);
        Map<String, Long> finalValues = readFinalValues(ledger);
        List<String> evidence = new ArrayList<>();

        long accepted = log.stream().filter(LogRow::accepted).count();
        long rejected = log.size() - accepted;

        // Stale accepted, two independent ways: (a) an accepted token below one the ledger had
        // already logged for the key; (b) an accepted token below one some worker had already
        // READ (its read raised the key's token) before the write landed. (b) compares worker
        // and database clocks on the same machine, and only counts reads logged before the
        // write, so it can miss a violation but never invent one.
        List<String> stale = LedgerLogRules.staleWritesAccepted(log, events);
        long staleAccepted = stale.size();
        evidence.addAll(stale);
        // Leader election: epochs only grow across elections, and the ledger took the leaders' writes in epoch order.
        // Not under clock-skew: libfaketime fakes the monotonic clock the order is judged on, per worker.
        List<String> regressions = workload == Workload.LEADER && fault != Fault.CLOCK_SKEW
                ? ElectionRules.epochRegressions(events) : List.of();
        List<String> outOfOrder = workload == Workload.LEADER ? ElectionRules.writesOutOfEpochOrder(log) : List.of();
        regressions.stream().limit(10).forEach(evidence::add);
        outOfOrder.stream().limit(10).forEach(evidence::add);
        long elections = events.stream().filter(e -> e.type().equals("ACQUIRED")).count();

        long lostUpdates = LedgerLogRules.lostUpdates(log, finalValues, evidence);

        // A grant whose log line a pause delayed is judged at the instant the pause struck (PausedGrants).
        List<WorkerEvent> granted = PausedGrants.placed(events, faults);
        // Holds that may coexist (readers, permits) are judged by their modes (ModeRules).
        boolean modes = workload == Workload.SHARED || workload == Workload.PERMITS;
        List<String> falseGrantEvidence = modes ? ModeRules.falseGrants(granted, faults)
                : HoldRules.falseGrants(granted, faults);
        evidence.addAll(falseGrantEvidence);
        List<String> reused = HoldRules.reusedTokenGrants(events);
        reused.stream().limit(10).forEach(r -> evidence.add("token reused: " + r));

        Clock clock = Clock.forRun(fault);
        List<String> validity = new ArrayList<>(modes ? ModeRules.validityOverlaps(granted, clock)
                : HoldRules.validityOverlaps(granted, clock));
        validity.addAll(ModeRules.tornReads(events));
        validity.stream().limit(10).forEach(evidence::add);
        List<String> falseVictims = workload == Workload.DEADLOCK ? DeadlockRules.falseVictims(events) : List.of();
        falseVictims.stream().limit(10).forEach(evidence::add);
        long samples = events.stream().filter(e -> e.type().equals("VALID")).count();

        return new RunResult(backend, fault, workload, seed, keys, server, seconds, workers, leaseMs, faults.size(),
                log.size(), accepted, rejected, staleAccepted, lostUpdates, falseGrantEvidence.size(), reused.size(),
                modes ? ModeRules.overlaps(events) : HoldRules.overlaps(events), samples, validity.size(), clock,
                VictimRules.victimWritesRejected(fault, events, faults),
                VictimRules.onLostFired(fault, workload, events, faults),
                VictimRules.measuredTakeovers(events, faults, leaseMs), orphans, evidence,
                new FaultFigures(VictimRules.victimsRecovered(events, faults),
                        events.stream().filter(e -> e.type().equals("LOST")).count(),
                        VictimRules.acquireMillis(events),
                        fault == Fault.CLIENT_CLOCK_JUMP ? events.stream()
                                .mapToLong(e -> Math.abs(e.wallSkewMillis())).max().orElse(0) : 0,
                        workload == Workload.LEADER ? elections : 0, regressions.size(), outOfOrder.size(),
                        DeadlockRules.victims(events), falseVictims.size()));
    }

    /** The ledger's log, in the order PostgreSQL logged it. */
    private static List<LogRow> readLog(Connection ledger) throws SQLException {
        List<LogRow> log = new ArrayList<>();
        // written_at truncated to the millisecond, as the workers' event times are: rounded, a
        // write at x.6 ms would read as x+1 and a later read in millisecond x as one before it.
        try (Statement s = ledger.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, key, worker, token, value_read, value_written, accepted,"
                     + " floor(extract(epoch FROM written_at) * 1000)::bigint FROM ledger_log ORDER BY id")) {
            while (rs.next()) {
                log.add(new LogRow(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5),
                        rs.getLong(6), rs.getBoolean(7), rs.getLong(8)));
            }
        }
        return log;
    }

    /** Each key's value in the ledger at the end. */
    private static Map<String, Long> readFinalValues(Connection ledger) throws SQLException {
        Map<String, Long> finalValues = new HashMap<>();
        try (Statement s = ledger.createStatement(); ResultSet rs = s.executeQuery("SELECT key, value FROM ledger")) {
            while (rs.next()) {
                finalValues.put(rs.getString(1), rs.getLong(2));
            }
        }
        return finalValues;
    }

    /**
     * The clock the validity overlaps are judged on: the host's monotonic clock
     * ({@code CLOCK_MONOTONIC}, read by every JVM on the host alike and never stepped), except
     * in a {@link Fault#CLOCK_SKEW} run, where libfaketime fakes the skewed workers' monotonic
     * clock as well (it reads as their faked wall clock): there the workers' wall clocks with
     * each worker's known offset taken back out.
     */
    public enum Clock {
        MONOTONIC, WALL_MINUS_OFFSET;

        static Clock forRun(Fault fault) {
            return fault == Fault.CLOCK_SKEW ? WALL_MINUS_OFFSET : MONOTONIC;
        }

        /** An event's time on this clock, in nanos. */
        long nanos(WorkerEvent e) {
            return this == MONOTONIC ? e.mono() : e.wallMicros() * 1000;
        }
    }

    /** A measured takeover and the victim's lease it is bounded by. */
    record Takeover(long millis, long victimLeaseMs) {
    }
}
