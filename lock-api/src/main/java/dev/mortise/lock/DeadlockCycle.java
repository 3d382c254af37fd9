package dev.mortise.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A cycle of waits that deadlock detection found and confirmed: each member waits for a key that
 * the next member holds, and the last waits for one the first holds. Immutable and thread-safe.
 *
 * @param members the waits, in the order of the cycle, starting with the one that found it
 * @param backend the backend's name
 * @param foundAt when it was confirmed (the finding client's clock)
 */
public record DeadlockCycle(List<Member> members, String backend, Instant foundAt) {

    public DeadlockCycle {
        members = List.copyOf(Objects.requireNonNull(members, "members"));
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(foundAt, "foundAt");
    }

    /**
     * One wait of the cycle.
     *
     * @param holderId the {@link LockLease#holderId() holder id} of the hold of this member's owner that
     *                 the previous member waits for
     * @param heldKey  the key of that hold
     * @param waitsFor the key this member waits for
     * @param mode     the mode it waits for that key in
     * @param waited   how long it had waited when the cycle was found (by its own process's wall clock)
     * @param victim   whether this is the wait the cycle ends: the youngest (ties broken the same way by
     *                 every member)
     */
    public record Member(String holderId, String heldKey, String waitsFor, LockMode mode, Duration waited,
                         boolean victim) {
        public Member {
            Objects.requireNonNull(holderId, "holderId");
            Objects.requireNonNull(heldKey, "heldKey");
            Objects.requireNonNull(waitsFor, "waitsFor");
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(waited, "waited");
        }
    }

    /** The member whose wait the cycle ends. */
    public Member victim() {
        return members.stream().filter(Member::victim).findFirst().orElseThrow();
    }

    /** One line per member: "holder 3f2a… holds 'a', waits 812 ms for 'b' (EXCLUSIVE)", the victim marked. */
    public String describe() {
        return members.stream().map(m -> "holder " + m.holderId() + " holds '" + m.heldKey() + "' and has waited "
                        + m.waited().toMillis() + " ms for '" + m.waitsFor() + "' (" + m.mode() + ")"
                        + (m.victim() ? " <- victim" : ""))
                .collect(Collectors.joining("; "));
    }
}
