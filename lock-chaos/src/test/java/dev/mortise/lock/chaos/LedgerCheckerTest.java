package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker's event-only figures on hand-made event lists: no servers, no timing. */
class LedgerCheckerTest {

    private static WorkerEvent ev(String worker, long at, String type, String key, long token) {
        return new WorkerEvent(worker, at, type, key, token, 0);
    }

    @Test
    void overlappingCriticalSectionsOfTwoWorkersOnOneKeyCountOnce() {
        List<WorkerEvent> events = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 100, "WRITE_REJECTED", "k", 1),
                ev("w1", 50, "ACQUIRED", "k", 2), ev("w1", 80, "WRITE_OK", "k", 2),
                // Another key, same time: not an overlap.
                ev("w2", 10, "ACQUIRED", "j", 1), ev("w2", 90, "WRITE_OK", "j", 1),
                // Later on k, after both ended: not an overlap.
                ev("w1", 200, "ACQUIRED", "k", 3), ev("w1", 300, "WRITE_OK", "k", 3));

        assertThat(LedgerChecker.overlaps(events)).isEqualTo(1);
    }

    @Test
    void aTokenGrantedTwiceForOneKeyIsCounted() {
        List<WorkerEvent> events = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w1", 10, "ACQUIRED", "k", 2),
                ev("w2", 20, "ACQUIRED", "k", 2), ev("w2", 30, "ACQUIRED", "j", 2));

        assertThat(LedgerChecker.reusedTokens(events)).isEqualTo(1);
    }

    @Test
    void workerEventLinesParseAndOtherOutputIsIgnored() {
        assertThat(WorkerEvent.parse("w0", "EV 1700000000000 READ k 7 41"))
                .isEqualTo(new WorkerEvent("w0", 1700000000000L, "READ", "k", 7, 41));
        assertThat(WorkerEvent.parse("w0", "[main] WARN something")).isNull();
        assertThat(WorkerEvent.parse("w0", "EV not a number")).isNull();
    }

    @Test
    void faultLabelsRoundTrip() {
        for (Fault fault : Fault.values()) {
            assertThat(Fault.of(fault.label())).isEqualTo(fault);
        }
        assertThat(Fault.SERVER_KILL.label()).isEqualTo("server-kill");
    }

    @Test
    void aGrantInsideAnotherWorkersLiveHoldIsAFalseGrant() {
        List<WorkerEvent> events = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 100, "WRITE_OK", "k", 1), ev("w0", 110, "RELEASED", "k", 1),
                ev("w1", 50, "ACQUIRED", "k", 2), ev("w1", 150, "WRITE_OK", "k", 2),
                // After w1's hold ended: a normal handover.
                ev("w0", 200, "ACQUIRED", "k", 3), ev("w0", 300, "WRITE_OK", "k", 3));

        assertThat(LedgerChecker.falseGrants(events, List.of())).hasSize(1)
                .first().asString().contains("w1 granted k token 2");
    }

    @Test
    void aGrantAfterTheHolderWasStruckOrToldItLostTheLockIsNoFalseGrant() {
        List<WorkerEvent> lost = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 90, "LOST", "k", 1), ev("w0", 100, "WRITE_REJECTED", "k", 1),
                ev("w1", 50, "ACQUIRED", "k", 2), ev("w1", 150, "WRITE_OK", "k", 2));
        assertThat(LedgerChecker.falseGrants(lost, List.of())).isEmpty();

        List<WorkerEvent> paused = List.of(
                ev("w0", 0, "ACQUIRED", "k", 1), ev("w0", 100, "WRITE_REJECTED", "k", 1),
                ev("w1", 50, "ACQUIRED", "k", 2), ev("w1", 150, "WRITE_OK", "k", 2));
        InjectedFault pause = new InjectedFault(Fault.PAUSE, "w0", "k", 1, 10, 90);
        assertThat(LedgerChecker.falseGrants(paused, List.of(pause))).isEmpty();
    }

    @Test
    void takeoverIsMeasuredOnlyToAGranteeThatWasAlreadyWaiting() {
        InjectedFault kill = new InjectedFault(Fault.KILL, "w0", "k", 1, 1000, 1000);
        List<WorkerEvent> waiting = List.of(ev("w1", 500, "WAIT", "k", 0), ev("w1", 3000, "ACQUIRED", "k", 2));
        assertThat(LedgerChecker.takeovers(waiting, List.of(kill), 2000)).containsExactly(2000L);

        // w1 came for the key after w0's lease had run out: when it came is not how long the key stayed locked.
        List<WorkerEvent> late = List.of(ev("w1", 3500, "WAIT", "k", 0), ev("w1", 3510, "ACQUIRED", "k", 2));
        assertThat(LedgerChecker.takeovers(late, List.of(kill), 2000)).isEmpty();
    }

    @Test
    void runResultSeparatesSafetyFromOtherRulesAndLeavesTimingOutOfTheUntimedOnes() {
        RunResult slow = new RunResult("redis", Fault.PAUSE, "s", 10, 2, 1000, 1, 10, 9, 1, 0, 0, 0, 0, 1, 1, 1,
                List.of(5000L), 0, List.of());
        assertThat(slow.safe()).isTrue();
        assertThat(slow.passed()).isFalse();
        assertThat(slow.untimedViolations()).isEmpty();

        RunResult unsafe = new RunResult("redis", Fault.PAUSE, "s", 10, 2, 1000, 1, 10, 9, 1, 0, 0, 1, 0, 1, 1, 0,
                List.of(), 1, List.of("false grant: ..."));
        assertThat(unsafe.safetyViolations()).containsExactly("1 false grant(s)");
        assertThat(unsafe.untimedViolations()).contains("1 orphan(s) on the server", "onLost fired for 0 of 1 victims");
    }
}
