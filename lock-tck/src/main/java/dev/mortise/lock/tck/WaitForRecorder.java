package dev.mortise.lock.tck;

import dev.mortise.lock.DeadlockCycle;
import dev.mortise.lock.LockMode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The true wait-for graph of a deadlock property run, as its owners report what they do: a hold is
 * recorded from after its acquire returned until before its close (inside the real hold), a wait from
 * before its acquire is called until after it returned (around the real wait). Every event is
 * stamped with {@link System#nanoTime()} and kept, so a reported cycle can be checked against the
 * whole history, and the graph can be sampled for cycles that last. A reader waits for a key's
 * holders when they hold it exclusively, or when another owner waits to write it (no writer
 * starvation: the reader is queued behind that writer, which waits for every holder). Thread-safe
 * (one monitor).
 */
final class WaitForRecorder {

    /** One interval of an owner: a hold of a key (with its holder id) or a wait for one. */
    record Interval(String owner, String key, LockMode mode, String holderId, boolean hold, long from, long to) {
        boolean openAt(long instant) {
            return from <= instant && instant <= to;
        }
    }

    private final List<Interval> closed = new ArrayList<>(); // guarded by this
    private final Map<String, Interval> open = new HashMap<>(); // by owner + key + kind; guarded by this

    private static String slot(String owner, String key, boolean hold) {
        return owner + "\u0000" + key + "\u0000" + hold;
    }

    synchronized void waitStarts(String owner, String key, LockMode mode) {
        open.put(slot(owner, key, false), new Interval(owner, key, mode, null, false, System.nanoTime(), Long.MAX_VALUE));
    }

    synchronized void waitEnds(String owner, String key) {
        end(slot(owner, key, false));
    }

    synchronized void holdStarts(String owner, String key, LockMode mode, String holderId) {
        open.put(slot(owner, key, true), new Interval(owner, key, mode, holderId, true, System.nanoTime(), Long.MAX_VALUE));
    }

    synchronized void holdEnds(String owner, String key) {
        end(slot(owner, key, true));
    }

    private void end(String slot) {
        Interval interval = open.remove(slot);
        if (interval != null) {
            closed.add(new Interval(interval.owner(), interval.key(), interval.mode(), interval.holderId(),
                    interval.hold(), interval.from(), System.nanoTime()));
        }
    }

    /**
     * Whether the reported {@code cycle} was a real cycle at some instant in [{@code from}, {@code to}]:
     * for every member, the owner of its hold (by holder id) held it and waited for the member's key
     * at one instant, and the next member's hold blocks that wait's mode. Checked at every interval
     * boundary in the window (the graph only changes there).
     */
    synchronized boolean wasRealBetween(DeadlockCycle cycle, long from, long to) {
        List<Interval> all = all();
        TreeSet<Long> instants = new TreeSet<>();
        instants.add(from);
        for (Interval interval : all) {
            if (interval.from() >= from && interval.from() <= to) {
                instants.add(interval.from());
            }
        }
        for (long instant : instants) {
            if (realAt(cycle, all, instant)) {
                return true;
            }
        }
        return false;
    }

    private static boolean realAt(DeadlockCycle cycle, List<Interval> all, long instant) {
        List<DeadlockCycle.Member> members = cycle.members();
        for (int i = 0; i < members.size(); i++) {
            DeadlockCycle.Member member = members.get(i);
            DeadlockCycle.Member next = members.get((i + 1) % members.size());
            Interval hold = find(all, true, null, member.holderId(), instant);
            Interval blocking = find(all, true, null, next.holderId(), instant);
            if (hold == null || blocking == null) {
                return false;
            }
            Interval wait = find(all, false, hold.owner(), member.waitsFor(), instant);
            if (wait == null || !blocking.key().equals(member.waitsFor()) || blocking.owner().equals(hold.owner())
                    || (wait.mode() == LockMode.SHARED && blocking.mode() == LockMode.SHARED
                    && !writerWaits(all, wait, instant))) {
                return false;
            }
        }
        return true;
    }

    /** Whether another owner waits to write the key {@code wait} (a reader's) is for, at {@code instant}. */
    private static boolean writerWaits(Collection<Interval> all, Interval wait, long instant) {
        for (Interval other : all) {
            if (!other.hold() && other.mode() == LockMode.EXCLUSIVE && other.key().equals(wait.key())
                    && !other.owner().equals(wait.owner()) && other.openAt(instant)) {
                return true;
            }
        }
        return false;
    }

    private static Interval find(List<Interval> all, boolean hold, String owner, String keyOrHolderId, long instant) {
        for (Interval interval : all) {
            if (interval.hold() == hold && interval.openAt(instant)
                    && (hold ? keyOrHolderId.equals(interval.holderId())
                    : interval.owner().equals(owner) && interval.key().equals(keyOrHolderId))) {
                return interval;
            }
        }
        return null;
    }

    private List<Interval> all() {
        List<Interval> all = new ArrayList<>(closed);
        all.addAll(open.values());
        return all;
    }

    /**
     * The owners in a cycle of the graph now (each waits for a key the next holds in a blocking mode),
     * as a set of "owner→key" edges, or empty when there is none.
     */
    synchronized Set<String> cycleNow() {
        Map<String, List<Interval>> waitsByOwner = new HashMap<>();
        Map<String, List<Interval>> holdsByKey = new HashMap<>();
        for (Interval interval : open.values()) {
            if (interval.hold()) {
                holdsByKey.computeIfAbsent(interval.key(), k -> new ArrayList<>()).add(interval);
            } else {
                waitsByOwner.computeIfAbsent(interval.owner(), k -> new ArrayList<>()).add(interval);
            }
        }
        long now = System.nanoTime();
        for (String start : waitsByOwner.keySet()) {
            Set<String> path = new TreeSet<>();
            if (reaches(start, start, waitsByOwner, holdsByKey, open.values(), now, path, new HashSet<>())) {
                return path;
            }
        }
        return Set.of();
    }

    private static boolean reaches(String from, String target, Map<String, List<Interval>> waits,
                                   Map<String, List<Interval>> holds, Collection<Interval> open, long now,
                                   Set<String> path, Set<String> seen) {
        if (!seen.add(from)) {
            return false;
        }
        for (Interval wait : waits.getOrDefault(from, List.of())) {
            for (Interval hold : holds.getOrDefault(wait.key(), List.of())) {
                if (hold.owner().equals(from) || (wait.mode() == LockMode.SHARED && hold.mode() == LockMode.SHARED
                        && !writerWaits(open, wait, now))) {
                    continue;
                }
                path.add(from + "->" + wait.key());
                if (hold.owner().equals(target)
                        || reaches(hold.owner(), target, waits, holds, open, now, path, seen)) {
                    return true;
                }
                path.remove(from + "->" + wait.key());
            }
        }
        return false;
    }
}
