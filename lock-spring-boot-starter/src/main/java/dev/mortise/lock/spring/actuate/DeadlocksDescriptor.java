package dev.mortise.lock.spring.actuate;

import dev.mortise.lock.DeadlockCycle;
import dev.mortise.lock.DeadlockReport;
import dev.mortise.lock.spring.LockAccess;

import java.util.List;

/**
 * What one backend's client of this instance sees of deadlocks ({@code LockClient.deadlocks()}), as
 * the {@code locks} endpoint shows it under {@code deadlocks}: its waits published now and the last
 * cycles it found. Times are ISO-8601 text, as in the rest of the endpoint. Immutable.
 *
 * @param backend   the configured backend name
 * @param enabled   whether the client looks for deadlocks (off by property, or on a backend that keeps
 *                  no wait records)
 * @param threshold how long a wait lasts before it is published ({@code PT0.2S})
 * @param period    how often a published wait is followed again
 * @param found     how many cycles the client has found since it was built
 * @param waits     the client's waits longer than the threshold whose owners hold other locks meanwhile
 * @param cycles    the last cycles the client found, newest last (at most 16)
 */
public record DeadlocksDescriptor(String backend, boolean enabled, String threshold, String period, long found,
                                  List<WaitDescriptor> waits, List<CycleDescriptor> cycles) {

    /**
     * One published wait.
     *
     * @param key       the key waited for
     * @param mode      {@code read} or {@code write}: the mode asked for
     * @param waited    how long it has waited ({@code PT1.2S})
     * @param holderIds the holder ids of the locks its owner holds meanwhile (as {@code held[].holderId}
     *                  and {@code GET /actuator/locks/{key}} show them)
     */
    public record WaitDescriptor(String key, String mode, String waited, List<String> holderIds) {
    }

    /**
     * One cycle found and confirmed.
     *
     * @param foundAt when it was confirmed (this instance's clock)
     * @param victim  the key whose wait the cycle ended (the victim member's {@code waitsFor})
     * @param members the waits of the cycle in order, starting with the one that found it
     */
    public record CycleDescriptor(String foundAt, String victim, List<MemberDescriptor> members) {
    }

    /**
     * One wait of a cycle: the owner of hold {@code holderId} (on {@code heldKey}) waits for {@code waitsFor}.
     *
     * @param victim whether this is the wait the cycle ended
     */
    public record MemberDescriptor(String holderId, String heldKey, String waitsFor, String mode, String waited,
                                   boolean victim) {
    }

    /** The descriptor of {@code report}, the deadlock report of backend {@code backend}'s client. */
    public static DeadlocksDescriptor of(String backend, DeadlockReport report) {
        List<WaitDescriptor> waits = report.waits().stream().map(wait -> new WaitDescriptor(wait.key(),
                LockAccess.of(wait.mode()).tag(), wait.waited().toString(), wait.holderIds())).toList();
        List<CycleDescriptor> cycles = report.recent().stream().map(DeadlocksDescriptor::cycle).toList();
        return new DeadlocksDescriptor(backend, report.detection().enabled(), report.detection().threshold().toString(),
                report.detection().period().toString(), report.found(), waits, cycles);
    }

    private static CycleDescriptor cycle(DeadlockCycle cycle) {
        List<MemberDescriptor> members = cycle.members().stream().map(m -> new MemberDescriptor(m.holderId(),
                m.heldKey(), m.waitsFor(), LockAccess.of(m.mode()).tag(), m.waited().toString(), m.victim())).toList();
        return new CycleDescriptor(cycle.foundAt().toString(), cycle.victim().waitsFor(), members);
    }
}
