package dev.mortise.lock.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link LedgerChecker}'s figures of the faults' victims: whether they recovered, were told of
 * their loss and had their write refused, how long workers waited for grants, and how soon
 * another worker took over.
 */
final class VictimRules {

    private VictimRules() {
    }

    /** Victims granted a lock again (any key) after their fault ended: they recovered. */
    static long victimsRecovered(List<WorkerEvent> events, List<InjectedFault> faults) {
        return faults.stream().filter(f -> events.stream().anyMatch(e -> e.type().equals("ACQUIRED")
                && e.worker().equals(f.worker()) && e.at() >= f.endedAt())).count();
    }

    /** Per grant, millis from the worker's last WAIT for the key before it to the grant. */
    static List<Long> acquireMillis(List<WorkerEvent> events) {
        Map<String, Long> waitingSince = new HashMap<>();
        List<Long> millis = new ArrayList<>();
        for (WorkerEvent e : events) {
            String slot = e.worker() + "\n" + e.key();
            if (e.type().equals("WAIT")) {
                waitingSince.put(slot, e.mono());
            } else if (e.type().equals("ACQUIRED")) {
                Long since = waitingSince.remove(slot);
                if (since != null) {
                    millis.add((e.mono() - since) / 1_000_000);
                }
            }
        }
        return millis;
    }

    /**
     * For each fault that took the victim's lease, whether the victim logged LOST for the token
     * it held. A cut holder ends its critical section (the ledger is not behind the cut) and
     * closes its lease before the lease runs out, so no listener is left to fire: there its
     * failed release (the close reports the loss) counts as being told. A cut leader
     * ({@link Workload#LEADER}) that steps down in that term ended it itself: its release failing
     * behind the cut leaves its term STEPPED_DOWN, with nothing left to tell (seen in a full run:
     * Redis net-cut, one of three victims). A cut holder whose close returned normally (RELEASED)
     * closed its lease while it was valid - else the close would have thrown - and DESIGN.md point 3
     * says such a lease is no loss, whatever its release answered behind the cut: it is told all
     * there is (seen on a fresh clone: Redis silent partition, the release answered after the heal).
     */
    static long onLostFired(Fault fault, Workload workload, List<WorkerEvent> events, List<InjectedFault> faults) {
        if (!fault.holderLosesLease()) {
            return 0;
        }
        boolean cut = fault == Fault.NET_CUT || fault == Fault.SILENT_PARTITION || fault == Fault.RENEW_STOP;
        boolean leader = workload == Workload.LEADER;
        return faults.stream().filter(f -> events.stream().anyMatch(e -> (e.type().equals("LOST")
                        || cut && e.type().equals("RELEASE_FAILED")
                        || cut && !leader && e.type().equals("RELEASED") && e.at() >= f.at()
                        || cut && leader && e.type().equals("STEP_DOWN"))
                && e.worker().equals(f.worker()) && e.key().equals(f.key()) && e.token() == f.token())).count();
    }

    /** For each fault that took the victim's lease, whether its write afterwards was rejected: the fault bit. */
    static long victimWritesRejected(Fault fault, List<WorkerEvent> events, List<InjectedFault> faults) {
        if (!fault.holderLosesLease()) {
            return 0;
        }
        return faults.stream().filter(f -> events.stream().anyMatch(e -> e.type().equals("WRITE_REJECTED")
                && e.worker().equals(f.worker()) && e.key().equals(f.key()) && e.token() == f.token())).count();
    }

    /**
     * Holder faults: millis from the fault to the next grant of the same key to another worker
     * that had started waiting for it before the victim's lease could have run out (a later
     * waiter measures only when it came, not how long the key stayed locked). Server faults:
     * millis from the kill to the first grant of any key after the restart (the recovery).
     */
    static List<Long> takeovers(List<WorkerEvent> events, List<InjectedFault> faults, long leaseMs) {
        return measuredTakeovers(events, faults, leaseMs).stream().map(LedgerChecker.Takeover::millis).toList();
    }

    /**
     * As {@link #takeovers}, each with the victim hold's lease: the longest of the default
     * lease and every lease the hold asked for (an explicit lease, an extend - also one whose
     * outcome the victim did not log before the fault, or that failed: the server may have
     * applied it). A shorter explicit or extended lease does not lower it: a server may keep a
     * hold longer than asked (etcd keeps at least 2 s). For server faults, the default lease.
     */
    static List<LedgerChecker.Takeover> measuredTakeovers(List<WorkerEvent> events, List<InjectedFault> faults, long leaseMs) {
        List<LedgerChecker.Takeover> takeovers = new ArrayList<>();
        for (InjectedFault f : faults) {
            if (f.fault().jumpsClock()) {
                // Nothing was taken down: nothing to recover from.
                continue;
            }
            if (f.fault().target() == Fault.Target.SERVER) {
                events.stream().filter(e -> e.type().equals("ACQUIRED") && e.at() >= f.endedAt())
                        .mapToLong(WorkerEvent::at).min()
                        .ifPresent(at -> takeovers.add(new LedgerChecker.Takeover(at - f.at(), leaseMs)));
                continue;
            }
            if (!f.fault().boundedTakeover()) {
                continue;
            }
            long victimLease = victimLeaseMs(events, f, leaseMs);
            events.stream()
                    .filter(e -> e.type().equals("ACQUIRED") && e.at() >= f.at() && e.key().equals(f.key())
                            && !e.worker().equals(f.worker()))
                    .min(Comparator.comparingLong(WorkerEvent::at))
                    .filter(grant -> waitStarted(events, grant) <= f.at() + victimLease)
                    .ifPresent(grant -> takeovers.add(new LedgerChecker.Takeover(grant.at() - f.at(), victimLease)));
        }
        return takeovers;
    }

    /** The longest lease the victim's hold asked for (at least the default; see {@link #measuredTakeovers}). */
    static long victimLeaseMs(List<WorkerEvent> events, InjectedFault f, long leaseMs) {
        long lease = leaseMs;
        for (WorkerEvent e : events) {
            if (!e.worker().equals(f.worker()) || !e.key().equals(f.key()) || e.token() != f.token()) {
                continue;
            }
            switch (e.type()) {
                case "MODE_EXPLICIT_LONGER" -> lease = Math.max(lease, 2 * leaseMs);
                case "EXTENDED", "EXTEND_FAILED" -> lease = Math.max(lease, e.value());
                default -> { }
            }
        }
        return lease;
    }

    /** When the grantee began the wait that ended in {@code grant}: its last WAIT before it. */
    private static long waitStarted(List<WorkerEvent> events, WorkerEvent grant) {
        return events.stream().filter(e -> e.worker().equals(grant.worker()) && e.type().equals("WAIT")
                        && e.key().equals(grant.key()) && e.at() <= grant.at())
                .mapToLong(WorkerEvent::at).max().orElse(Long.MAX_VALUE);
    }
}
