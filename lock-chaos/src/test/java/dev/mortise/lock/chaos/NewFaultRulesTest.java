package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules and figures of issue 20's faults on hand-made results and events: no servers, no timing. */
class NewFaultRulesTest {

    private static WorkerEvent ev(String worker, long at, String type, String key, long token) {
        return new WorkerEvent(worker, at, type, key, token, 0);
    }

    /** A redis run of {@code fault} with one fault injected, {@code validityOverlaps} and the figures. */
    private static RunResult result(Fault fault, long validityOverlaps, long onLost, FaultFigures figures) {
        return new RunResult("redis", fault, Workload.BASIC, 1, List.of("k"), "s", 10, 2, 1000, 1, 10, 9, 1, 0, 0, 0,
                0, 1, 100, validityOverlaps, LedgerChecker.Clock.MONOTONIC, 1, onLost,
                List.of(new LedgerChecker.Takeover(900, 1000)), 0, List.of(), figures);
    }

    @Test
    void aCutWorkerThatIsGrantedALockAfterTheHealHasRecovered() {
        InjectedFault silence = new InjectedFault(Fault.SILENT_PARTITION, "w0", "k", 1, 1000, 6000);
        List<WorkerEvent> before = List.of(ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 3000, "RELEASE_FAILED", "k", 1),
                // Granted during the partition (a request delivered before it): not a recovery.
                ev("w0", 5000, "ACQUIRED", "j", 2), ev("w1", 7000, "ACQUIRED", "k", 3));
        assertThat(VictimRules.victimsRecovered(before, List.of(silence))).isZero();

        List<WorkerEvent> after = new java.util.ArrayList<>(before);
        after.add(ev("w0", 6500, "ACQUIRED", "j", 4));
        assertThat(VictimRules.victimsRecovered(after, List.of(silence))).isEqualTo(1);
    }

    @Test
    void aCutLeaderThatStepsDownInItsTermWasNotLeftUntold() {
        InjectedFault cut = new InjectedFault(Fault.NET_CUT, "w0", "k", 7, 1000, 6000);
        List<WorkerEvent> steppedDown = List.of(ev("w0", 0, "ACQUIRED", "k", 7), ev("w0", 1200, "STEP_DOWN", "k", 7),
                ev("w0", 4200, "RELEASED", "k", 7), ev("w1", 4300, "ACQUIRED", "k", 9));
        assertThat(VictimRules.onLostFired(Fault.NET_CUT, Workload.LEADER, steppedDown, List.of(cut))).isEqualTo(1);
        // Only a leader's own step-down counts, and only for the term the fault struck.
        List<WorkerEvent> stepDownOnly = List.of(ev("w0", 0, "ACQUIRED", "k", 7), ev("w0", 1200, "STEP_DOWN", "k", 7));
        assertThat(VictimRules.onLostFired(Fault.NET_CUT, Workload.BASIC, stepDownOnly, List.of(cut))).isZero();
        assertThat(VictimRules.onLostFired(Fault.PAUSE, Workload.LEADER, steppedDown,
                List.of(new InjectedFault(Fault.PAUSE, "w0", "k", 7, 1000, 6000)))).isZero();
        List<WorkerEvent> otherTerm = List.of(ev("w0", 0, "ACQUIRED", "k", 7), ev("w0", 1200, "STEP_DOWN", "k", 5));
        assertThat(VictimRules.onLostFired(Fault.NET_CUT, Workload.LEADER, otherTerm, List.of(cut))).isZero();
    }

    /**
     * A cut holder that closed its lease while valid (the close returned: RELEASED) was told all there
     * is: a lease closed while valid is no loss (DESIGN.md point 3). Not for a pause (its victim must
     * hear of the loss), nor a release from before the fault struck.
     */
    @Test
    void aCutHolderThatClosedWhileValidWasNotLeftUntold() {
        InjectedFault silence = new InjectedFault(Fault.SILENT_PARTITION, "w0", "k", 7, 1000, 5000);
        List<WorkerEvent> closedInTheCut = List.of(ev("w0", 0, "ACQUIRED", "k", 7), ev("w0", 1300, "RELEASING", "k", 7),
                ev("w0", 5200, "RELEASED", "k", 7), ev("w1", 2600, "ACQUIRED", "k", 9));
        assertThat(VictimRules.onLostFired(Fault.SILENT_PARTITION, Workload.BASIC, closedInTheCut, List.of(silence)))
                .isEqualTo(1);
        assertThat(VictimRules.onLostFired(Fault.PAUSE, Workload.BASIC, closedInTheCut,
                List.of(new InjectedFault(Fault.PAUSE, "w0", "k", 7, 1000, 5000)))).isZero();
        List<WorkerEvent> closedBefore = List.of(ev("w0", 0, "ACQUIRED", "k", 7), ev("w0", 900, "RELEASED", "k", 7));
        assertThat(VictimRules.onLostFired(Fault.SILENT_PARTITION, Workload.BASIC, closedBefore, List.of(silence)))
                .isZero();
    }

    @Test
    void aSilentPartitionFailsWhenTheCutWorkerNeverRecovers() {
        RunResult stuck = result(Fault.SILENT_PARTITION, 0, 1, new FaultFigures(0, 1, List.of()));
        assertThat(stuck.safe()).isTrue();
        assertThat(stuck.otherViolations()).containsExactly("the cut worker acquired again after 0 of 1 heals");
        assertThat(result(Fault.SILENT_PARTITION, 0, 1, new FaultFigures(1, 1, List.of())).passed()).isTrue();
    }

    @Test
    void aLeaseLostUnderAClientClockJumpFailsTheRunAndOnlyThere() {
        FaultFigures lost = new FaultFigures(0, 2, List.of(), 180_000);
        assertThat(result(Fault.CLIENT_CLOCK_JUMP, 0, 0, lost).otherViolations())
                .containsExactly("2 lease(s) lost although no fault took one: a wall-clock jump reached lease time");
        assertThat(result(Fault.CLIENT_CLOCK_JUMP, 0, 0, new FaultFigures(0, 0, List.of(), 12)).otherViolations())
                .containsExactly("the workers' wall clocks never jumped (off by at most 12 ms): the fault did not"
                        + " bite (libfaketime?)");
        assertThat(result(Fault.SERVER_CLOCK_JUMP, 0, 0, lost).otherViolations()).isEmpty();
    }

    @Test
    void aServerClockJumpsValidityOverlapIsUnsafeAndTheVerdictSaysFencingHeld() {
        RunResult r = result(Fault.SERVER_CLOCK_JUMP, 3, 0, FaultFigures.NONE);
        assertThat(r.safe()).isFalse();
        assertThat(r.verdict()).isEqualTo("**UNSAFE**: 3 validity overlap(s) - the server's clock jumped forward and"
                + " expired holds early, while the holders' leases were valid by their own clocks; fencing held: 0"
                + " stale write(s) accepted");
    }

    @Test
    void theAcquireTimeRunsFromEachWaitToItsGrantOnTheMonotonicClock() {
        List<WorkerEvent> events = List.of(
                new WorkerEvent("w0", 0, "WAIT", "k", 0, 0, 1_000_000_000L, 0),
                new WorkerEvent("w0", 0, "ACQUIRED", "k", 1, 0, 1_250_000_000L, 0),
                new WorkerEvent("w1", 0, "WAIT", "k", 0, 0, 1_100_000_000L, 0),
                new WorkerEvent("w1", 0, "WAIT_TIMEOUT", "k", 0, 0, 2_100_000_000L, 0),
                new WorkerEvent("w1", 0, "WAIT", "k", 0, 0, 3_000_000_000L, 0),
                new WorkerEvent("w1", 0, "ACQUIRED", "k", 2, 0, 3_007_000_000L, 0));

        List<Long> millis = VictimRules.acquireMillis(events);
        assertThat(millis).containsExactly(250L, 7L);
        assertThat(new FaultFigures(0, 0, millis).acquirePercentile(50)).isEqualTo(7);
        assertThat(new FaultFigures(0, 0, millis).acquirePercentile(99)).isEqualTo(250);
    }

    @Test
    void aJumpingWorkersEventsAreTimedByItsMonotonicClock() {
        // Logged while the worker's wall clock was three minutes ahead.
        WorkerEvent e = new WorkerEvent("w0", 1_700_000_180_000L, "VALID", "k", 1, 1, 5_000_000_000L,
                1_700_000_180_000_000L);
        long monoToWall = 1_700_000_000_000_000_000L - 5_000_000_000L;

        WorkerEvent timed = e.timedByMonotonic(monoToWall);
        assertThat(timed.at()).isEqualTo(1_700_000_000_000L);
        assertThat(timed.mono()).isEqualTo(e.mono());
        assertThat(timed.wallSkewMillis()).as("what the worker's own clock read, kept").isEqualTo(180_000);
    }

    @Test
    void theNewFaultsAreInTheFullRunWithTheirTargetsAndBackends() {
        assertThat(Fault.all()).contains(Fault.SILENT_PARTITION, Fault.RELEASE_KILL, Fault.RENEW_STOP,
                Fault.SERVER_CLOCK_JUMP, Fault.CLIENT_CLOCK_JUMP);
        assertThat(Workload.BASIC.defaultFaults()).containsAll(Fault.all());
        assertThat(Fault.SERVER_CLOCK_JUMP.appliesTo("redis")).isTrue();
        assertThat(Fault.SERVER_CLOCK_JUMP.appliesTo("jdbc")).isTrue();
        assertThat(Fault.SERVER_CLOCK_JUMP.appliesTo("etcd")).as("under the ptrace clock tracer").isTrue();
        assertThat(Fault.SERVER_CLOCK_JUMP.appliesTo("zookeeper")).as("in a server JVM of its own").isTrue();
        for (String backend : Backends.SUPPORTED) {
            assertThat(Fault.SILENT_PARTITION.appliesTo(backend)).isTrue();
            assertThat(Fault.CLIENT_CLOCK_JUMP.appliesTo(backend)).isTrue();
        }
        assertThat(Fault.RELEASE_KILL.killsVictim()).isTrue();
        assertThat(Fault.SILENT_PARTITION.throughProxy()).isTrue();
        assertThat(Fault.RENEW_STOP.holderLosesLease()).isTrue();
    }
}
