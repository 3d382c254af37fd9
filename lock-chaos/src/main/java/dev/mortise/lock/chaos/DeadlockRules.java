package dev.mortise.lock.chaos;

import static dev.mortise.lock.chaos.WorkerLog.log;

import dev.mortise.lock.DeadlockCycle;
import dev.mortise.lock.DeadlockDetection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@link Workload#DEADLOCK} workload's lines and its rule: no false victim. A worker logs
 * {@value #HOLDER} after each grant (value: the lease's holder id as a number), and a wait ended by a
 * {@link dev.mortise.lock.LockDeadlockException} logs, per member of the cycle it names,
 * {@value #CYCLE_HELD} (key: the member's held key, token: its holder id) and {@value #CYCLE_WAITS}
 * (key: the key it waits for, token: its holder id, value 1 for the victim), then {@value #VICTIM_LINE}
 * on the key it waited for (value: the members).
 *
 * <p>The rule, judged from the run's own history on the host's monotonic clock: for each victim, in the
 * window from its wait's start plus the detection threshold (no round of that wait runs earlier) to its
 * report, every member's owner (the worker that logged its holder id) held the member's held key at
 * some instant and was waiting for the member's awaited key at some instant, and the victim named is
 * the reporting worker. Intervals are taken wide, so the rule can miss a false victim but never invent
 * one: a wait from its WAIT line to the line that ends it; a hold from the WAIT line before its grant
 * to its release (or loss) line, cut short at the next grant of the key to another worker (mutual
 * exclusion, checked by the other rules, says the hold was over by then). A paused or cut worker's stale
 * wait record that made a victim shows as a member not waiting, or not holding, in the window.
 */
final class DeadlockRules {

    static final String HOLDER = "HOLDER";
    static final String CYCLE_HELD = "CYCLE_HELD";
    static final String CYCLE_WAITS = "CYCLE_WAITS";
    static final String VICTIM_LINE = "DEADLOCK";
    /** The workers' detection setting (the client default): its threshold opens a victim's window. */
    static final DeadlockDetection DETECTION = DeadlockDetection.DEFAULT;

    private static final Set<String> WAIT_ENDS = Set.of("ACQUIRED", "WAIT_TIMEOUT", VICTIM_LINE);
    private static final Set<String> HOLD_ENDS = Set.of("RELEASED", "RELEASE_FAILED", "LOST");

    private DeadlockRules() {
    }

    /** A holder id (16 hex digits) as the number a line carries. */
    static long holderNumber(String holderId) {
        return Long.parseUnsignedLong(holderId, 16);
    }

    /** The lines of a wait for {@code key} ended as the victim of {@code cycle}. */
    static void logVictim(String key, DeadlockCycle cycle) {
        for (DeadlockCycle.Member m : cycle.members()) {
            long holder = holderNumber(m.holderId());
            log(CYCLE_HELD, m.heldKey(), holder, 0);
            log(CYCLE_WAITS, m.waitsFor(), holder, m.victim() ? 1 : 0);
        }
        log(VICTIM_LINE, key, 0, cycle.members().size());
    }

    /** The victims the run's workers logged. */
    static long victims(List<WorkerEvent> events) {
        return events.stream().filter(e -> e.type().equals(VICTIM_LINE)).count();
    }

    /** One line of evidence per false victim ({@link DeadlockRules the rule}); empty when there was none. */
    static List<String> falseVictims(List<WorkerEvent> events) {
        Map<String, List<WorkerEvent>> byWorker = new HashMap<>();
        Map<Long, String> owners = new HashMap<>();
        for (WorkerEvent e : events) {
            byWorker.computeIfAbsent(e.worker(), w -> new ArrayList<>()).add(e);
            if (e.type().equals(HOLDER)) {
                owners.put(e.value(), e.worker());
            }
        }
        List<String> evidence = new ArrayList<>();
        long threshold = DETECTION.threshold().toNanos();
        for (List<WorkerEvent> mine : byWorker.values()) {
            List<WorkerEvent> members = new ArrayList<>();
            for (int i = 0; i < mine.size(); i++) {
                WorkerEvent e = mine.get(i);
                if (e.type().equals(CYCLE_HELD) || e.type().equals(CYCLE_WAITS)) {
                    members.add(e);
                } else if (e.type().equals(VICTIM_LINE)) {
                    WorkerEvent waited = lastWait(mine, i, e.key());
                    long from = waited == null ? Long.MIN_VALUE : waited.mono() + threshold;
                    String wrong = wrongMember(members, owners, byWorker, events, e, from);
                    if (wrong != null) {
                        evidence.add("false deadlock victim: " + e.worker() + " on " + ChaosKeys.quoted(e.key())
                                + " at " + e.at() + ": " + wrong);
                    }
                    members.clear();
                }
            }
        }
        return evidence;
    }

    /** What is wrong with the cycle {@code members} named to {@code victim}, or null. */
    private static String wrongMember(List<WorkerEvent> members, Map<Long, String> owners,
                                      Map<String, List<WorkerEvent>> byWorker, List<WorkerEvent> all,
                                      WorkerEvent victim, long from) {
        long to = victim.mono();
        for (WorkerEvent m : members) {
            String owner = owners.get(m.token());
            if (owner == null) {
                return "holder id " + Long.toHexString(m.token()) + " was never granted a lock";
            }
            List<WorkerEvent> his = byWorker.get(owner);
            if (m.type().equals(CYCLE_HELD) && !held(his, all, owner, m.key(), from, to)) {
                return owner + " did not hold " + ChaosKeys.quoted(m.key()) + " between the detection's start and the report";
            }
            if (m.type().equals(CYCLE_WAITS) && !waiting(his, m.key(), from, to)) {
                return owner + " was not waiting for " + ChaosKeys.quoted(m.key())
                        + " between the detection's start and the report";
            }
            if (m.type().equals(CYCLE_WAITS) && m.value() == 1 && !owner.equals(victim.worker())) {
                return "the cycle's victim is " + owner + ", not the worker it ended";
            }
        }
        return null;
    }

    /** The worker's WAIT for {@code key} last before index {@code before}, or null. */
    private static WorkerEvent lastWait(List<WorkerEvent> mine, int before, String key) {
        for (int i = before - 1; i >= 0; i--) {
            if (mine.get(i).type().equals("WAIT") && mine.get(i).key().equals(key)) {
                return mine.get(i);
            }
        }
        return null;
    }

    /** Whether one of the worker's waits for {@code key} was under way at some instant of [from, to]. */
    private static boolean waiting(List<WorkerEvent> his, String key, long from, long to) {
        for (int i = 0; i < his.size(); i++) {
            WorkerEvent start = his.get(i);
            if (!start.type().equals("WAIT") || !start.key().equals(key) || start.mono() > to) {
                continue;
            }
            long end = Long.MAX_VALUE;
            for (int j = i + 1; j < his.size(); j++) {
                WorkerEvent e = his.get(j);
                if ((WAIT_ENDS.contains(e.type()) && e.key().equals(key)) || e.type().equals("ERROR")
                        || e.type().equals("WAIT") || e.type().equals("END")) {
                    end = e.mono();
                    break;
                }
            }
            if (end >= from) {
                return true;
            }
        }
        return false;
    }

    /** Whether one of the worker's holds of {@code key} was on at some instant of [from, to]. */
    private static boolean held(List<WorkerEvent> his, List<WorkerEvent> all, String worker, String key, long from,
                                long to) {
        long waitStart = Long.MIN_VALUE;
        for (int i = 0; i < his.size(); i++) {
            WorkerEvent e = his.get(i);
            if (e.type().equals("WAIT") && e.key().equals(key)) {
                waitStart = e.mono();
            }
            if (!e.type().equals("ACQUIRED") || !e.key().equals(key) || waitStart > to) {
                continue;
            }
            long end = Long.MAX_VALUE;
            for (int j = i + 1; j < his.size(); j++) {
                WorkerEvent r = his.get(j);
                if (HOLD_ENDS.contains(r.type()) && r.key().equals(key) && r.token() == e.token()) {
                    end = r.mono();
                    break;
                }
            }
            for (WorkerEvent other : all) {
                if (other.type().equals("ACQUIRED") && other.key().equals(key) && !other.worker().equals(worker)
                        && other.mono() > e.mono() && other.mono() < end) {
                    end = other.mono();
                }
            }
            if (end >= from) {
                return true;
            }
        }
        return false;
    }
}
