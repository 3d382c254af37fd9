package dev.mortise.lock.chaos;

import dev.mortise.lock.chaos.HoldModes.Mode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * {@link LedgerChecker}'s grant rules for holds that may coexist: the {@link Workload#SHARED} and
 * {@link Workload#PERMITS} workloads, whose holds carry a mode ({@link HoldModes}). Each rule is
 * the exclusive rule with "another holder" replaced by "more conflicting holders than the grant's
 * mode leaves room for" ({@link HoldModes#conflict}, {@link HoldModes#capacity}): for a reader or
 * a writer any writer beside it, for a writer any holder, for a permit of N the N - 1 other
 * permits. Evidence names the grant and every holder beside it.
 *
 * <p>{@link #tornReads} is a second, ledger-side way to see a writer beside a reader, needing no
 * clock comparison across workers.
 */
final class ModeRules {

    private ModeRules() {
    }

    /**
     * False grants: a grant made while more conflicting holds of its resource than its mode
     * allows were held - their grants logged before it, their critical sections (to their write
     * outcome or release) not yet ended - by holders struck by no fault during the hold that
     * never learned they had lost it (as {@link HoldRules#falseGrants}, whose timing
     * argument holds here too).
     */
    static List<String> falseGrants(List<WorkerEvent> events, List<InjectedFault> faults) {
        return beyondCapacity(events, o -> !o.lost() && faults.stream().noneMatch(f -> f.worker().equals(o.worker())
                && f.at() <= o.to() && f.endedAt() >= o.from()), "false grant");
    }

    /**
     * Grants made while more conflicting critical sections of the resource than the mode allows
     * were open, whatever became of their holders: what would have gone wrong without fencing (the
     * report's overlap column).
     */
    static long overlaps(List<WorkerEvent> events) {
        return beyondCapacity(events, o -> true, "overlap").size();
    }

    private static List<String> beyondCapacity(List<WorkerEvent> events, Predicate<HoldRules.Hold> counts,
                                               String what) {
        HoldModes modes = HoldModes.of(events);
        List<HoldRules.Hold> holds = holds(events);
        List<String> found = new ArrayList<>();
        for (HoldRules.Hold grant : holds) {
            Mode mode = modes.of(grant.worker(), grant.key(), grant.token());
            String resource = HoldModes.resource(grant.key(), mode);
            List<HoldRules.Hold> beside = holds.stream().filter(o -> {
                Mode other = modes.of(o.worker(), o.key(), o.token());
                return !o.worker().equals(grant.worker()) && o.from() < grant.from() && grant.from() < o.to()
                        && HoldModes.resource(o.key(), other).equals(resource) && HoldModes.conflict(mode, other)
                        && counts.test(o);
            }).toList();
            if (beside.size() > HoldModes.capacity(mode)) {
                found.add(what + ": " + grant.worker() + " granted " + ChaosKeys.quoted(grant.key()) + " ("
                        + mode + ") token " + grant.token() + " at " + grant.from() + " while " + beside.stream()
                        .map(o -> o.worker() + " held " + ChaosKeys.quoted(o.key()) + " ("
                                + modes.of(o.worker(), o.key(), o.token()) + ") token " + o.token() + " from "
                                + o.from() + " to " + o.to()).toList() + " and never lost it");
            }
        }
        return found;
    }

    /**
     * {@link HoldRules#holds}, each ended no later than its RELEASING line. A reader or a
     * permit holder writes nothing, so its hold would end at RELEASED, logged after the release
     * returned - after the server had freed the key and maybe granted it to the next worker,
     * whose ACQUIRED can carry an earlier time (seen on Redis: a writer's grant 1 ms before its
     * reader's RELEASED line). RELEASING is logged before the release is sent, so a correct grant
     * happens after it, as after an exclusive holder's write outcome.
     */
    static List<HoldRules.Hold> holds(List<WorkerEvent> events) {
        List<HoldRules.Hold> holds = new ArrayList<>();
        for (HoldRules.Hold h : HoldRules.holds(events)) {
            long releasing = events.stream().filter(e -> e.type().equals("RELEASING") && e.worker().equals(h.worker())
                            && e.key().equals(h.key()) && e.token() == h.token() && e.at() >= h.from())
                    .mapToLong(WorkerEvent::at).min().orElse(Long.MAX_VALUE);
            holds.add(new HoldRules.Hold(h.worker(), h.key(), h.token(), h.from(), Math.min(h.to(), releasing),
                    h.lost()));
        }
        return holds;
    }

    /** A grant and how long its holder is proven valid: to its last {@code isValid()} true sample, on the run's clock. */
    private record Proven(WorkerEvent grant, Mode mode, String resource, long until) {
    }

    /**
     * Validity overlaps: a grant confirmed (its acquire returned) while more conflicting holders
     * than its mode allows were valid - each granted before it and seen {@code isValid()} true
     * after it. A lease valid at a sample was valid since its grant (validity only ends), so each
     * such holder was valid at the grant's instant. As in {@link HoldRules#validityOverlaps},
     * a sample's time is read before {@code isValid()} and a grant's after the acquire returned,
     * so the timing can hide an overlap but never invent one. One line per grant.
     */
    static List<String> validityOverlaps(List<WorkerEvent> events, LedgerChecker.Clock clock) {
        HoldModes modes = HoldModes.of(events);
        List<Proven> proven = proven(events, modes, clock);
        List<String> found = new ArrayList<>();
        for (Proven g : proven) {
            long at = clock.nanos(g.grant());
            List<Proven> beside = proven.stream().filter(x -> !sameHold(x.grant(), g.grant())
                    && x.resource().equals(g.resource()) && HoldModes.conflict(g.mode(), x.mode())
                    && clock.nanos(x.grant()) < at && at < x.until()).toList();
            if (beside.size() > HoldModes.capacity(g.mode())) {
                found.add("validity overlap: " + g.grant().worker() + "'s grant of " + ChaosKeys.quoted(g.grant().key())
                        + " (" + g.mode() + ") token " + g.grant().token() + " at " + g.grant().at()
                        + " was confirmed while " + beside.size() + " holder(s) beside it were valid: "
                        + beside.stream().map(x -> x.grant().worker() + " (" + x.mode() + ", token "
                                + x.grant().token() + ", granted at " + x.grant().at() + ", isValid() true "
                                + String.format(Locale.ROOT, "%.3f", (x.until() - at) / 1e6) + " ms after)").toList()
                        + "; " + clock + " clock");
            }
        }
        return found;
    }

    /** Every grant with the last true sample of its hold before the same hold's next grant (or the grant's own time). */
    private static List<Proven> proven(List<WorkerEvent> events, HoldModes modes, LedgerChecker.Clock clock) {
        List<WorkerEvent> grants = events.stream().filter(e -> e.type().equals("ACQUIRED")).toList();
        List<Proven> proven = new ArrayList<>();
        for (WorkerEvent grant : grants) {
            long from = clock.nanos(grant);
            long next = grants.stream().filter(o -> o != grant && sameHold(o, grant) && clock.nanos(o) > from)
                    .mapToLong(clock::nanos).min().orElse(Long.MAX_VALUE);
            long until = events.stream().filter(e -> e.type().equals("VALID") && e.value() == 1 && sameHold(e, grant)
                    && clock.nanos(e) >= from && clock.nanos(e) < next).mapToLong(clock::nanos).max().orElse(from);
            Mode mode = modes.of(grant.worker(), grant.key(), grant.token());
            proven.add(new Proven(grant, mode, HoldModes.resource(grant.key(), mode), until));
        }
        proven.sort(Comparator.comparingLong(p -> clock.nanos(p.grant())));
        return proven;
    }

    private static boolean sameHold(WorkerEvent a, WorkerEvent b) {
        return a.worker().equals(b.worker()) && a.key().equals(b.key()) && a.token() == b.token();
    }

    /**
     * Torn reads: a reader whose READ and READ_AGAIN of its key returned different values,
     * although its lease was valid at a sample after READ_AGAIN. Its reads raised the key's fence
     * to its token, so the write accepted in between carried a higher token - a writer granted
     * after the reader - and landed while the reader's lease was valid (valid at the later sample,
     * so valid since its grant): a writer beside a valid reader, seen in the ledger alone, in one
     * worker's order of lines, no clocks compared. Counted with the validity overlaps.
     */
    static List<String> tornReads(List<WorkerEvent> events) {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            WorkerEvent mode = events.get(i);
            if (!mode.type().equals(HoldModes.SHARED)) {
                continue;
            }
            WorkerEvent read = null;
            WorkerEvent again = null;
            boolean validAfter = false;
            for (int j = i + 1; j < events.size(); j++) {
                WorkerEvent e = events.get(j);
                if (!sameHold(e, mode)) {
                    continue;
                }
                if (e.type().equals("READ") && read == null) {
                    read = e;
                } else if (e.type().equals("READ_AGAIN") && read != null && again == null) {
                    again = e;
                } else if (e.type().equals("VALID") && e.value() == 1 && again != null) {
                    validAfter = true;
                    break;
                }
            }
            if (again != null && validAfter && again.value() != read.value()) {
                found.add("torn read: " + mode.worker() + " held " + ChaosKeys.quoted(mode.key()) + " shared, token "
                        + mode.token() + ", read " + read.value() + " at " + read.at() + " and " + again.value()
                        + " at " + again.at() + " and saw its lease valid after: a write was accepted beside a valid reader");
            }
        }
        return found;
    }
}
