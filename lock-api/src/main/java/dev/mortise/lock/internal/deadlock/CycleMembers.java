package dev.mortise.lock.internal.deadlock;

import dev.mortise.lock.DeadlockCycle;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Turns a confirmed chain into the {@link DeadlockCycle} users see, with its victim marked. Stateless. */
final class CycleMembers {

    private CycleMembers() {
    }

    /**
     * The cycle of {@code chain} found by {@code me}: member 0 is {@code me}, member i + 1 the owner of
     * the hold edge i waits for. The victim is the youngest wait ({@link WaitRecordText#youngerThan}).
     */
    static DeadlockCycle of(WaitWatch me, List<CycleSearch.Edge> chain, String backend, Instant now) {
        List<WaitRecordText> waits = new ArrayList<>();
        List<String> holderIds = new ArrayList<>();
        List<String> heldKeys = new ArrayList<>();
        CycleSearch.Edge closing = chain.get(chain.size() - 1);
        waits.add(me.record);
        holderIds.add(closing.holderId());
        heldKeys.add(closing.key());
        for (CycleSearch.Edge edge : chain) {
            if (edge.nextText() != null) {
                waits.add(WaitRecordText.decode(edge.nextText()));
                holderIds.add(edge.holderId());
                heldKeys.add(edge.key());
            }
        }
        WaitRecordText youngest = waits.get(0);
        for (WaitRecordText wait : waits) {
            if (wait.youngerThan(youngest)) {
                youngest = wait;
            }
        }
        List<DeadlockCycle.Member> members = new ArrayList<>();
        long nowMillis = now.toEpochMilli();
        for (int i = 0; i < waits.size(); i++) {
            WaitRecordText wait = waits.get(i);
            members.add(new DeadlockCycle.Member(holderIds.get(i), heldKeys.get(i), wait.key(), wait.mode(),
                    Duration.ofMillis(Math.max(0, nowMillis - wait.sinceMillis())), wait == youngest));
        }
        return new DeadlockCycle(members, backend, now);
    }
}
