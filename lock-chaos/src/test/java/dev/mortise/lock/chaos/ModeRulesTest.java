package dev.mortise.lock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shared and permits workloads' grant rules ({@link ModeRules}),
 * on hand-made event lists: each rule with a case it must flag and one it must not. No servers,
 * no timing.
 */
class ModeRulesTest {

    private static final LedgerChecker.Clock MONO = LedgerChecker.Clock.MONOTONIC;

    private static WorkerEvent ev(String worker, long at, String type, String key, long token) {
        return new WorkerEvent(worker, at, type, key, token, 0);
    }

    private static WorkerEvent ev(String worker, long at, String type, String key, long token, long value) {
        return new WorkerEvent(worker, at, type, key, token, value);
    }

    /** A reader's hold from {@code from} to {@code to}, reading {@code v1} then {@code v2}, valid at {@code validAt}. */
    private static List<WorkerEvent> reader(String w, String key, long token, long from, long to, long v1, long v2,
                                            long validAt) {
        List<WorkerEvent> events = new ArrayList<>(List.of(ev(w, from, "ACQUIRED", key, token),
                ev(w, from, HoldModes.SHARED, key, token), ev(w, from + 1, "READ", key, token, v1),
                ev(w, to - 2, "READ_AGAIN", key, token, v2)));
        if (validAt > 0) {
            events.add(ev(w, validAt, "VALID", key, token, 1));
        }
        events.add(ev(w, to - 1, "RELEASING", key, token));
        events.add(ev(w, to, "RELEASED", key, token));
        return events;
    }

    /** A writer's hold from {@code from} to its write at {@code to}, valid at {@code validAt}. */
    private static List<WorkerEvent> writer(String w, String key, long token, long from, long to, long validAt) {
        return List.of(ev(w, from, "ACQUIRED", key, token), ev(w, from + 1, "READ", key, token),
                ev(w, validAt, "VALID", key, token, 1), ev(w, to, "WRITE_OK", key, token),
                ev(w, to + 1, "RELEASED", key, token));
    }

    private static List<WorkerEvent> all(List<List<WorkerEvent>> parts) {
        return parts.stream().flatMap(List::stream).toList();
    }

    @Test
    void readersBesideReadersAreNoViolation() {
        List<WorkerEvent> events = all(List.of(reader("w0", "k", 1, 0, 200, 3, 3, 190),
                reader("w1", "k", 2, 50, 250, 3, 3, 240), reader("w2", "k", 3, 100, 300, 3, 3, 290)));

        assertThat(ModeRules.falseGrants(events, List.of())).isEmpty();
        assertThat(ModeRules.validityOverlaps(events, MONO)).isEmpty();
        assertThat(ModeRules.overlaps(events)).isZero();
        assertThat(ModeRules.tornReads(events)).isEmpty();
    }

    @Test
    void aWriterGrantedBesideAValidReaderIsFlagged() {
        // w0 reads k from 0 to 200 and is valid at 190; w1 is granted k exclusively at 100.
        List<WorkerEvent> events = all(List.of(reader("w0", "k", 1, 0, 200, 3, 3, 190),
                writer("w1", "k", 2, 100, 150, 120)));

        assertThat(ModeRules.falseGrants(events, List.of())).singleElement().asString()
                .contains("w1 granted \"k\" (exclusive) token 2").contains("w0 held \"k\" (shared) token 1");
        assertThat(ModeRules.validityOverlaps(events, MONO)).singleElement().asString()
                .contains("w1's grant of \"k\" (exclusive) token 2").contains("w0 (shared, token 1");
        assertThat(ModeRules.overlaps(events)).isEqualTo(1);
    }

    @Test
    void aReaderGrantedBesideAValidWriterIsFlagged() {
        List<WorkerEvent> events = all(List.of(writer("w0", "k", 1, 0, 200, 190),
                reader("w1", "k", 2, 100, 300, 0, 0, 290)));

        assertThat(ModeRules.falseGrants(events, List.of())).singleElement().asString()
                .contains("w1 granted \"k\" (shared) token 2");
        assertThat(ModeRules.validityOverlaps(events, MONO)).singleElement().asString()
                .contains("w1's grant of \"k\" (shared) token 2");
    }

    @Test
    void aWriterAfterTheReaderLostItOrWasLastSeenValidIsNoViolation() {
        // w0's last true sample (90) is before w1's grant (100), and w0 was told it lost the hold.
        List<WorkerEvent> events = new ArrayList<>(all(List.of(reader("w0", "k", 1, 0, 200, 3, 3, 90),
                writer("w1", "k", 2, 100, 150, 120))));
        events.add(ev("w0", 95, "LOST", "k", 1));

        assertThat(ModeRules.falseGrants(events, List.of())).isEmpty();
        assertThat(ModeRules.validityOverlaps(events, MONO)).isEmpty();
        // Without fencing the sections would still have overlapped: the informational column.
        assertThat(ModeRules.overlaps(events)).isEqualTo(1);
    }

    @Test
    void aGrantBetweenTheHoldersReleasingAndReleasedLinesIsNoViolation() {
        // Seen on Redis: the server freed the key on w0's release and granted it to w1, whose
        // ACQUIRED (at 199) was logged before w0's RELEASED (200), after w0's RELEASING (199).
        List<WorkerEvent> events = all(List.of(reader("w0", "k", 1, 0, 200, 3, 3, 190),
                writer("w1", "k", 2, 199, 250, 240)));
        assertThat(ModeRules.falseGrants(events, List.of())).isEmpty();
        assertThat(ModeRules.validityOverlaps(events, MONO)).isEmpty();

        List<WorkerEvent> permits = all(List.of(permit("w0", "s#permits", 1, 0, 200, 190, 2),
                permit("w1", "s#permits", 2, 50, 250, 240, 2), permit("w2", "s#permits", 3, 199, 300, 290, 2)));
        assertThat(ModeRules.falseGrants(permits, List.of())).isEmpty();
    }

    @Test
    void aReaderWhoseTwoReadsDifferWhileItWasValidIsATornRead() {
        List<WorkerEvent> torn = reader("w0", "k", 1, 0, 200, 3, 4, 199);
        assertThat(ModeRules.tornReads(torn)).singleElement().asString()
                .contains("w0 held \"k\" shared, token 1, read 3").contains("and 4");

        // Invalid after its second read (a pause took the lease): a writer may have come in.
        List<WorkerEvent> lapsed = new ArrayList<>(reader("w0", "k", 1, 0, 200, 3, 4, 0));
        lapsed.add(lapsed.size() - 1, ev("w0", 199, "VALID", "k", 1, 0));
        assertThat(ModeRules.tornReads(lapsed)).isEmpty();
        // The same value twice: nothing was written beside it.
        assertThat(ModeRules.tornReads(reader("w0", "k", 1, 0, 200, 3, 3, 199))).isEmpty();
    }

    private static List<WorkerEvent> permit(String w, String key, long token, long from, long to, long validAt,
                                            int permits) {
        return List.of(ev(w, from, "ACQUIRED", key, token), ev(w, from, HoldModes.PERMIT, key, token, permits),
                ev(w, from + 1, "INSIDE", key, token), ev(w, validAt, "VALID", key, token, 1),
                ev(w, to - 2, "OUTSIDE", key, token), ev(w, to - 1, "RELEASING", key, token),
                ev(w, to, "RELEASED", key, token));
    }

    @Test
    void permitsUpToTheCountAtOnceAreNoViolation() {
        List<WorkerEvent> events = all(List.of(permit("w0", "s#permits", 1, 0, 200, 190, 2),
                permit("w1", "s#permits", 2, 50, 250, 240, 2),
                // After w0's release: two at once again.
                permit("w2", "s#permits", 3, 210, 300, 290, 2)));

        assertThat(ModeRules.falseGrants(events, List.of())).isEmpty();
        assertThat(ModeRules.validityOverlaps(events, MONO)).isEmpty();
        assertThat(ModeRules.overlaps(events)).isZero();
    }

    @Test
    void aPermitBeyondTheCountIsFlagged() {
        // Three holders of a 2-permit semaphore at 100: w2's grant is one too many.
        List<WorkerEvent> events = all(List.of(permit("w0", "s#permits", 1, 0, 200, 190, 2),
                permit("w1", "s#permits", 2, 50, 250, 240, 2), permit("w2", "s#permits", 3, 100, 300, 290, 2)));

        assertThat(ModeRules.falseGrants(events, List.of())).singleElement().asString()
                .contains("w2 granted \"s#permits\" (permit of 2) token 3");
        assertThat(ModeRules.validityOverlaps(events, MONO)).singleElement().asString()
                .contains("confirmed while 2 holder(s) beside it were valid");
    }

    @Test
    void slotPermitsCountTogetherPerSemaphore() {
        // Slot fallback: each permit on its own slot key, their tokens per slot; three at once of 2.
        List<WorkerEvent> events = all(List.of(permit("w0", "s#permit-0", 1, 0, 200, 190, 2),
                permit("w1", "s#permit-1", 1, 50, 250, 240, 2), permit("w2", "s#permit-0", 2, 100, 300, 290, 2)));
        assertThat(ModeRules.validityOverlaps(events, MONO)).hasSize(1);

        List<WorkerEvent> twoSlots = all(List.of(permit("w0", "s#permit-0", 1, 0, 200, 190, 2),
                permit("w1", "s#permit-1", 1, 50, 250, 240, 2)));
        assertThat(ModeRules.validityOverlaps(twoSlots, MONO)).isEmpty();
        assertThat(ModeRules.falseGrants(twoSlots, List.of())).isEmpty();
    }

    @Test
    void aPermitHolderStruckByAFaultDoesNotMakeAFalseGrant() {
        List<WorkerEvent> events = all(List.of(permit("w0", "s#permits", 1, 0, 200, 40, 2),
                permit("w1", "s#permits", 2, 50, 250, 240, 2), permit("w2", "s#permits", 3, 100, 300, 290, 2)));
        InjectedFault pause = new InjectedFault(Fault.PAUSE, "w0", "s#permits", 1, 60, 180);

        assertThat(ModeRules.falseGrants(events, List.of(pause))).isEmpty();
        // w0's last true sample was at 40: not proven valid at w2's grant.
        assertThat(ModeRules.validityOverlaps(events, MONO)).isEmpty();
    }
}
