package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The deadlock workload's rule on hand-made histories: a victim of a cycle the history shows passes;
 * one named through a wait that had ended, a hold another worker had taken over, a holder id no
 * grant carried, or a victim other than the worker it ended is a false victim.
 */
class DeadlockRulesTest {

    private static final long H0 = 0x0a0b0c0d0e0f1011L;
    private static final long H1 = 0xfedcba9876543210L; // negative as a long: parsed unsigned

    /** w0 holds a and waits for b from 20 ms; w1 holds b and waits for a from 100 ms, and is ended at 400 ms. */
    private static List<WorkerEvent> cycle() {
        List<WorkerEvent> events = new ArrayList<>(List.of(
                new WorkerEvent("w0", 0, "WAIT", "a", 0, 0),
                new WorkerEvent("w0", 10, "ACQUIRED", "a", 1, 0),
                new WorkerEvent("w0", 10, DeadlockRules.HOLDER, "a", 1, H0),
                new WorkerEvent("w0", 20, "WAIT", "b", 0, 0),
                new WorkerEvent("w1", 0, "WAIT", "b", 0, 0),
                new WorkerEvent("w1", 10, "ACQUIRED", "b", 1, 0),
                new WorkerEvent("w1", 10, DeadlockRules.HOLDER, "b", 1, H1),
                new WorkerEvent("w1", 100, "WAIT", "a", 0, 0)));
        events.addAll(victim("w1", 400, true));
        return events;
    }

    /** w1's lines of the cycle, ended at {@code at}; the victim flag on w1's member or (false) on w0's. */
    private static List<WorkerEvent> victim(String worker, long at, boolean w1Victim) {
        return List.of(
                new WorkerEvent(worker, at, DeadlockRules.CYCLE_HELD, "b", H1, 0),
                new WorkerEvent(worker, at, DeadlockRules.CYCLE_WAITS, "a", H1, w1Victim ? 1 : 0),
                new WorkerEvent(worker, at, DeadlockRules.CYCLE_HELD, "a", H0, 0),
                new WorkerEvent(worker, at, DeadlockRules.CYCLE_WAITS, "b", H0, w1Victim ? 0 : 1),
                new WorkerEvent(worker, at, DeadlockRules.VICTIM_LINE, "a", 0, 2));
    }

    @Test
    void aCycleTheHistoryShowsIsNoFalseVictim() {
        assertThat(DeadlockRules.falseVictims(cycle())).isEmpty();
        assertThat(DeadlockRules.victims(cycle())).isOne();
        assertThat(DeadlockRules.holderNumber("fedcba9876543210")).isEqualTo(H1);
    }

    @Test
    void aMemberWhoseWaitHadEndedBeforeTheDetectionCouldStartIsAFalseVictim() {
        List<WorkerEvent> events = cycle();
        // w0's wait for b timed out at 150 ms: before w1's first round could run (100 ms + the 200 ms threshold).
        events.add(4, new WorkerEvent("w0", 150, "WAIT_TIMEOUT", "b", 0, 0));
        assertThat(DeadlockRules.falseVictims(events)).singleElement().asString()
                .contains("w0 was not waiting for \"b\"");
    }

    @Test
    void aHolderWhoseKeyAnotherWorkerWasGrantedIsAFalseVictim() {
        List<WorkerEvent> events = cycle();
        // w0's hold of a was over by 250 ms (w2 was granted a): a stale hold, e.g. of a paused worker.
        events.add(new WorkerEvent("w2", 200, "WAIT", "a", 0, 0));
        events.add(new WorkerEvent("w2", 250, "ACQUIRED", "a", 2, 0));
        assertThat(DeadlockRules.falseVictims(events)).singleElement().asString()
                .contains("w0 did not hold \"a\"");
    }

    @Test
    void anUnknownHolderOrAnotherVictimIsAFalseVictim() {
        List<WorkerEvent> unknown = new ArrayList<>(cycle());
        unknown.removeIf(e -> e.type().equals(DeadlockRules.HOLDER) && e.worker().equals("w0"));
        assertThat(DeadlockRules.falseVictims(unknown)).singleElement().asString().contains("never granted");

        List<WorkerEvent> other = new ArrayList<>(cycle());
        other.removeIf(e -> e.worker().equals("w1") && e.at() == 400);
        other.addAll(victim("w1", 400, false));
        assertThat(DeadlockRules.falseVictims(other)).singleElement().asString().contains("the cycle's victim is w0");
    }
}
