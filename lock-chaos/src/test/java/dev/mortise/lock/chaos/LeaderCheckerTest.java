package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The leader workload's rules on hand-made ledger rows and events: no servers, no timing. */
class LeaderCheckerTest {

    /** An event at {@code at} ms; an ACQUIRED's {@code value} is the monotonic time before the worker asked (1 ms before). */
    private static WorkerEvent ev(String worker, long at, String type, long token) {
        long mono = at * 1_000_000;
        long value = type.equals("ACQUIRED") ? mono - 1_000_000 : 0;
        return new WorkerEvent(worker, at, type, "k", token, value, mono, at * 1000);
    }

    private static LedgerChecker.LogRow row(long id, String worker, long epoch, long read, boolean accepted,
                                            long at) {
        return new LedgerChecker.LogRow(id, "k", worker, epoch, read, read + 1, accepted, at);
    }

    /**
     * w0 leads with epoch 1 and is paused inside its critical section; w1 is elected with epoch 2,
     * reads and writes; w0 wakes and writes with its stale epoch 1.
     */
    private static final List<WorkerEvent> FAILOVER = List.of(
            ev("w0", 100, "ACQUIRED", 1), ev("w0", 110, "READ", 1),
            ev("w1", 3000, "ACQUIRED", 2), ev("w1", 3010, "READ", 2), ev("w1", 3300, "WRITE_OK", 2),
            ev("w0", 5200, "LOST", 1));

    @Test
    void aDeposedLeadersWriteAcceptedWithItsStaleEpochIsUnsafe() {
        List<LedgerChecker.LogRow> log = List.of(
                row(1, "w1", 2, 0, true, 3300),
                // The ledger took the deposed leader's write: what fencing by epoch must prevent.
                row(2, "w0", 1, 0, true, 5100));

        assertThat(LedgerLogRules.staleWritesAccepted(log, FAILOVER)).hasSize(1)
                .first().asString().contains("ledger_log id 2");
        assertThat(ElectionRules.writesOutOfEpochOrder(log)).hasSize(1)
                .first().asString().contains("w0's epoch 1 (ledger_log id 2) after w1's epoch 2");
        RunResult result = result(1, new FaultFigures(0, 1, List.of(), 0, 2, 0, 1));
        assertThat(result.safe()).isFalse();
        assertThat(result.safetyViolations()).contains("1 stale write(s) accepted",
                "1 leader write(s) accepted out of epoch order");
    }

    @Test
    void aDeposedLeadersWriteRejectedByTheLedgerBreaksNothing() {
        List<LedgerChecker.LogRow> log = List.of(row(1, "w1", 2, 0, true, 3300), row(2, "w0", 1, 0, false, 5100));

        assertThat(LedgerLogRules.staleWritesAccepted(log, FAILOVER)).isEmpty();
        assertThat(ElectionRules.writesOutOfEpochOrder(log)).isEmpty();
        assertThat(ElectionRules.epochRegressions(FAILOVER)).isEmpty();
        assertThat(result(0, new FaultFigures(0, 1, List.of(), 0, 2, 0, 0)).passed()).isTrue();
    }

    @Test
    void anElectionWhoseEpochDoesNotGrowIsARegression() {
        List<WorkerEvent> events = List.of(ev("w0", 100, "ACQUIRED", 5), ev("w0", 900, "LOST", 5),
                ev("w1", 1000, "ACQUIRED", 5), ev("w2", 2000, "ACQUIRED", 4), ev("w0", 3000, "ACQUIRED", 6));

        assertThat(ElectionRules.epochRegressions(events)).hasSize(2)
                .anySatisfy(e -> assertThat(e).contains("w1 elected with epoch 5"))
                .anySatisfy(e -> assertThat(e).contains("w2 elected with epoch 4"));
    }

    @Test
    void electionsSeenInOverlappingWindowsAreNotOrdered() {
        // w0 asked at 99 ms but was stopped before it logged (at 5000 ms): its window spans w1's
        // election, so which came first is unknown and nothing is claimed.
        WorkerEvent late = new WorkerEvent("w0", 5000, "ACQUIRED", "k", 1, 99_000_000L, 5_000_000_000L, 5_000_000);
        assertThat(ElectionRules.epochRegressions(List.of(late, ev("w1", 3000, "ACQUIRED", 2)))).isEmpty();
    }

    @Test
    void aLeaderRunWithoutAnyElectionFails() {
        assertThat(result(0, new FaultFigures(0, 0, List.of(), 0, 0, 0, 0)).otherViolations())
                .contains("no leader elected");
    }

    @Test
    void theReportRendersALeaderRunInTheTableAndTheLeaderElectionSummary() {
        RunResult r = result(0, new FaultFigures(0, 1, List.of(), 0, 3, 0, 0));
        String md = new ReliabilityReport(List.of(r), List.of(), new ChaosRun.Settings(10, 3, 2, 1000, 300), "cmd", 7,
                List.of("k")).markdown();

        assertThat(md).contains("| redis | pause | leader | s |", "### Leader election (the `leader` workload)",
                "| redis | pause | 3 | 2 | 0 | 0 | 0 | 1 / 1 | 1900 / 1900 (1) | safe |", "`leader` - leader election");
        assertThat(r.toJson()).contains("\"workload\":\"leader\"", "\"elections\":3", "\"epochRegressions\":0",
                "\"writesOutOfEpochOrder\":0");
        assertThat(Workload.of("leader")).isEqualTo(Workload.LEADER);
        assertThat(ChaosRun.keys(7, Workload.LEADER, new ChaosRun.Settings(10, 3, 2, 1000, 300))).hasSize(1);
    }

    private static RunResult result(long staleAccepted, FaultFigures figures) {
        return new RunResult("redis", Fault.PAUSE, Workload.LEADER, 1, List.of("k"), "s", 10, 3, 1000, 1, 2,
                1 + staleAccepted, 1 - staleAccepted, staleAccepted, 0, 0, 0, 1, 100, 0,
                LedgerChecker.Clock.MONOTONIC, 1 - staleAccepted, 1, List.of(new LedgerChecker.Takeover(1900, 1000)),
                0, List.of(), figures);
    }
}
