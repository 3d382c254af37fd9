package dev.mortise.lock.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link LedgerChecker}'s grant rules for exclusive holds, judged from the workers' events: false
 * grants, reused tokens, overlapping critical sections and validity overlaps. The holds that may
 * coexist (readers, permits) have theirs in {@link ModeRules}.
 */
final class HoldRules {

    private HoldRules() {
    }

    private record Interval(String worker, long token, long from, long to) {
    }

    /** A worker's hold of a key: from its ACQUIRED to the first event that ends the critical section. */
    record Hold(String worker, String key, long token, long from, long to, boolean lost) {
    }

    /** Every hold in the events, each marked lost when its worker logged LOST or RELEASE_FAILED for it. */
    static List<Hold> holds(List<WorkerEvent> events) {
        Map<String, List<WorkerEvent>> perWorker = new LinkedHashMap<>();
        events.forEach(e -> perWorker.computeIfAbsent(e.worker(), w -> new ArrayList<>()).add(e));
        List<Hold> holds = new ArrayList<>();
        for (List<WorkerEvent> mine : perWorker.values()) {
            for (int i = 0; i < mine.size(); i++) {
                WorkerEvent acquired = mine.get(i);
                if (!acquired.type().equals("ACQUIRED")) {
                    continue;
                }
                // A worker runs one cycle at a time (of one key or several): its hold of a key
                // ends at the first write outcome or release of that key after the grant (when the
                // release goes out: RELEASING; a hold let go without a write, a deadlock victim's,
                // may be granted again before RELEASED is logged), the cycle's error or the
                // worker's end (or with its last event, if it was killed).
                long to = Long.MAX_VALUE;
                for (int j = i + 1; j < mine.size(); j++) {
                    WorkerEvent e = mine.get(j);
                    String type = e.type();
                    boolean sameKey = e.key().equals(acquired.key()) && e.token() == acquired.token();
                    if (sameKey && (type.equals("WRITE_OK") || type.equals("WRITE_REJECTED")
                            || type.equals("RELEASING") || type.equals("RELEASED") || type.equals("RELEASE_FAILED"))
                            || type.equals("ERROR") || type.equals("END")) {
                        to = e.at();
                        break;
                    }
                }
                boolean lost = mine.stream().anyMatch(e -> (e.type().equals("LOST") || e.type().equals("RELEASE_FAILED"))
                        && e.key().equals(acquired.key()) && e.token() == acquired.token());
                holds.add(new Hold(acquired.worker(), acquired.key(), acquired.token(), acquired.at(), to, lost));
            }
        }
        return holds;
    }

    /**
     * False grants: a grant to one worker made while another worker held the same key - its
     * grant logged before, its critical section not yet ended - although that holder was struck
     * by no fault during the hold and never learned it had lost the lock (no LOST, no failed
     * release). Both timestamps are taken on one machine's clock after the steps they log, and a
     * correct grant happens-after the previous holder's write was logged, so no margin is needed.
     * A waiter whose session died while it waited and that is granted anyway shows up here.
     */
    static List<String> falseGrants(List<WorkerEvent> events, List<InjectedFault> faults) {
        List<Hold> holds = holds(events);
        List<String> found = new ArrayList<>();
        for (Hold grant : holds) {
            for (Hold other : holds) {
                if (other.worker().equals(grant.worker()) || !other.key().equals(grant.key()) || other.lost()
                        || !(other.from() < grant.from() && grant.from() < other.to())) {
                    continue;
                }
                boolean struck = faults.stream().anyMatch(f -> f.worker().equals(other.worker())
                        && f.at() <= other.to() && f.endedAt() >= other.from());
                if (!struck) {
                    found.add("false grant: " + grant.worker() + " granted " + grant.key() + " token " + grant.token()
                            + " at " + grant.from() + " while " + other.worker() + " held it with token "
                            + other.token() + " from " + other.from() + " to " + other.to() + " and never lost it");
                    break;
                }
            }
        }
        return found;
    }

    /**
     * Grants that repeated a (key, token) pair already granted: every grant must carry a new
     * token, or two holders could both pass the ledger's "token >= highest" check.
     */
    static long reusedTokens(List<WorkerEvent> events) {
        return reusedTokenGrants(events).size();
    }

    static List<String> reusedTokenGrants(List<WorkerEvent> events) {
        Map<String, WorkerEvent> granted = new HashMap<>();
        List<String> reused = new ArrayList<>();
        for (WorkerEvent e : events.stream().filter(e -> e.type().equals("ACQUIRED"))
                .sorted(Comparator.comparingLong(WorkerEvent::at)).toList()) {
            WorkerEvent first = granted.putIfAbsent(e.key() + "\n" + e.token(), e);
            if (first != null) {
                reused.add(e.key() + " token " + e.token() + " granted to " + first.worker() + " at " + first.at()
                        + " and again to " + e.worker() + " at " + e.at());
            }
        }
        return reused;
    }

    /** Pairs of critical sections (ACQUIRED to the end of the write) on one key that overlapped in time. */
    static long overlaps(List<WorkerEvent> events) {
        Map<String, List<Interval>> perKey = new HashMap<>();
        Map<String, WorkerEvent> open = new HashMap<>();
        for (WorkerEvent e : events.stream().sorted(Comparator.comparingLong(WorkerEvent::at)).toList()) {
            String holder = e.worker() + "/" + e.key() + "/" + e.token();
            switch (e.type()) {
                case "ACQUIRED" -> open.put(holder, e);
                case "WRITE_OK", "WRITE_REJECTED", "ERROR" -> {
                    WorkerEvent start = open.remove(holder);
                    if (start != null) {
                        perKey.computeIfAbsent(e.key(), k -> new ArrayList<>())
                                .add(new Interval(e.worker(), e.token(), start.at(), e.at()));
                    }
                }
                default -> { }
            }
        }
        long overlaps = 0;
        for (List<Interval> intervals : perKey.values()) {
            intervals.sort(Comparator.comparingLong(Interval::from));
            for (int i = 0; i < intervals.size(); i++) {
                for (int j = i + 1; j < intervals.size() && intervals.get(j).from() < intervals.get(i).to(); j++) {
                    if (!intervals.get(j).worker().equals(intervals.get(i).worker())) {
                        overlaps++;
                    }
                }
            }
        }
        return overlaps;
    }

    /**
     * Validity overlaps: a holder's {@code isValid()} sample that returned true although the
     * sample was taken after another grant of the same key (another worker, or another token)
     * was confirmed - that grantee's acquire had returned - and after the holder's own grant.
     * The sample's time is read <em>before</em> {@code isValid()} is called and a grant's
     * <em>after</em> its acquire returned, so both errors of the timing can only hide an overlap,
     * never invent one. One per pair of holds (a holder sampling true ten times after the same
     * grant counts once), with the evidence naming both and by how much the sample came late.
     */
    static List<String> validityOverlaps(List<WorkerEvent> events, LedgerChecker.Clock clock) {
        Map<String, List<WorkerEvent>> grantsPerKey = new HashMap<>();
        // Per worker, key and token, every grant: a server that forgot its counter grants a token twice.
        Map<String, List<WorkerEvent>> grantsOf = new HashMap<>();
        for (WorkerEvent e : events) {
            if (e.type().equals("ACQUIRED")) {
                grantsPerKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
                grantsOf.computeIfAbsent(e.worker() + "\n" + e.key() + "\n" + e.token(), k -> new ArrayList<>())
                        .add(e);
            }
        }
        Map<String, String> found = new LinkedHashMap<>();
        for (WorkerEvent sample : events.stream().filter(e -> e.type().equals("VALID") && e.value() == 1)
                .sorted(Comparator.comparingLong(clock::nanos)).toList()) {
            // The sample's own grant: the last grant of its worker, key and token before it.
            WorkerEvent own = grantsOf.getOrDefault(sample.worker() + "\n" + sample.key() + "\n" + sample.token(),
                            List.of()).stream().filter(g -> clock.nanos(g) <= clock.nanos(sample))
                    .max(Comparator.comparingLong(clock::nanos)).orElse(null);
            if (own == null) {
                continue;
            }
            for (WorkerEvent other : grantsPerKey.getOrDefault(sample.key(), List.of())) {
                boolean sameGrant = other.worker().equals(own.worker()) && other.token() == own.token();
                if (sameGrant || clock.nanos(other) <= clock.nanos(own) || clock.nanos(other) >= clock.nanos(sample)) {
                    continue;
                }
                String pair = sample.worker() + "\n" + sample.key() + "\n" + sample.token() + "\n" + own.mono()
                        + "\n" + other.worker() + "\n" + other.token() + "\n" + other.mono();
                found.putIfAbsent(pair, "validity overlap: " + sample.worker() + " saw isValid() true for "
                        + ChaosKeys.quoted(sample.key()) + " token " + sample.token() + " "
                        + String.format(java.util.Locale.ROOT, "%.3f", (clock.nanos(sample) - clock.nanos(other)) / 1e6)
                        + " ms after " + other.worker() + "'s grant of token " + other.token() + " was confirmed ("
                        + sample.worker() + " was granted it at " + own.at() + ", " + other.worker() + " at "
                        + other.at() + ", sample at " + sample.at() + " epoch ms; " + clock + " clock)");
            }
        }
        return new ArrayList<>(found.values());
    }
}
