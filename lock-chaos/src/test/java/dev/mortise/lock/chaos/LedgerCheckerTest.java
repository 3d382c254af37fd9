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
}
