package dev.mortise.lock.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the ledger, its log and the workers' events after a run and computes the safety
 * figures of one backend × fault. It judges only from what was recorded: the ledger log
 * (PostgreSQL's clock) and the worker events (the workers' clocks, the same machine's).
 */
public final class LedgerChecker {

    /** One row of the ledger's log: a write attempt, accepted or not, as PostgreSQL logged it. */
    record LogRow(long id, String key, String worker, long token, long valueRead, long valueWritten,
                  boolean accepted, long writtenAt) {
    }

    private record Interval(String worker, long token, long from, long to) {
    }

    private LedgerChecker() {
    }

    /**
     * Computes the figures; the connection is the ledger's.
     *
     * @param server  the lock server as run, for the report
     * @param leaseMs the workers' lease: takeovers are measured only where the grantee was
     *                already waiting before the victim's lease could have run out
     */
    public static RunResult check(String backend, Fault fault, String server, int seconds, int workers, long leaseMs,
                                  Connection ledger, List<WorkerEvent> events, List<InjectedFault> faults,
                                  long orphans) throws SQLException {
        return check(backend, fault, Workload.BASIC, 0, List.of(), server, seconds, workers, leaseMs, ledger, events,
                faults, orphans);
    }

    /**
     * As above for a run of {@code workload} on the {@code keys} drawn from {@code seed}.
     */
    public static RunResult check(String backend, Fault fault, Workload workload, long seed, List<String> keys,
                                  String server, int seconds, int workers, long leaseMs,
                                  Connection ledger, List<WorkerEvent> events, List<InjectedFault> faults,
                                  long orphans) throws SQLException {
        List<LogRow> log = new ArrayList<>();
        // written_at truncated to the millisecond, as the workers' event times are: rounded, a
        // write at x.6 ms would read as x+1 and a later read in millisecond x as one before it.
        try (Statement s = ledger.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, key, worker, token, value_read, value_written, accepted,"
                     + " floor(extract(epoch FROM written_at) * 1000)::bigint FROM ledger_log ORDER BY id")) {
            while (rs.next()) {
                log.add(new LogRow(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5),
                        rs.getLong(6), rs.getBoolean(7), rs.getLong(8)));
            }
        }
        Map<String, Long> finalValues = new HashMap<>();
        try (Statement s = ledger.createStatement(); ResultSet rs = s.executeQuery("SELECT key, value FROM ledger")) {
            while (rs.next()) {
                finalValues.put(rs.getString(1), rs.getLong(2));
            }
        }
        List<String> evidence = new ArrayList<>();

        long accepted = log.stream().filter(LogRow::accepted).count();
        long rejected = log.size() - accepted;

        // Stale accepted, two independent ways: (a) an accepted token below one the ledger had
        // already logged for the key; (b) an accepted token below one some worker had already
        // READ (its read raised the key's token) before the write landed. (b) compares worker
        // and database clocks on the same machine, and only counts reads logged before the
        // write, so it can miss a violation but never invent one.
        List<String> stale = staleWritesAccepted(log, events);
        long staleAccepted = stale.size();
        evidence.addAll(stale);
        // Leader election: epochs only grow across elections, and the ledger took the leaders' writes in epoch order.
        // Not under clock-skew: libfaketime fakes the monotonic clock the order is judged on, per worker.
        List<String> regressions = workload == Workload.LEADER && fault != Fault.CLOCK_SKEW ? epochRegressions(events)
                : List.of();
        List<String> outOfOrder = workload == Workload.LEADER ? writesOutOfEpochOrder(log) : List.of();
        regressions.stream().limit(10).forEach(evidence::add);
        outOfOrder.stream().limit(10).forEach(evidence::add);
        long elections = events.stream().filter(e -> e.type().equals("ACQUIRED")).count();

        // Lost updates: each accepted write must have read the previous accepted value, and the
        // final value must equal the number of accepted increments.
        long lostUpdates = 0;
        Map<String, Long> lastValue = new HashMap<>();
        Map<String, Long> acceptedPerKey = new HashMap<>();
        for (LogRow row : log) {
            if (!row.accepted()) {
                continue;
            }
            if (row.valueRead() != lastValue.getOrDefault(row.key(), 0L)) {
                lostUpdates++;
                evidence.add("lost update: ledger_log id " + row.id() + " read " + row.valueRead() + " after "
                        + lastValue.getOrDefault(row.key(), 0L) + " was written: " + row);
            }
            lastValue.put(row.key(), row.valueWritten());
            acceptedPerKey.merge(row.key(), 1L, Long::sum);
        }
        for (Map.Entry<String, Long> e : finalValues.entrySet()) {
            long diff = Math.abs(e.getValue() - acceptedPerKey.getOrDefault(e.getKey(), 0L));
            if (diff > 0) {
                evidence.add("lost update: " + e.getKey() + " ends at " + e.getValue() + " after "
                        + acceptedPerKey.getOrDefault(e.getKey(), 0L) + " accepted increments");
            }
            lostUpdates += diff;
        }

        // A grant whose log line a pause delayed is judged at the instant the pause struck (PausedGrants).
        List<WorkerEvent> granted = PausedGrants.placed(events, faults);
        // Holds that may coexist (readers, permits) are judged by their modes (ModeRules).
        boolean modes = workload == Workload.SHARED || workload == Workload.PERMITS;
        List<String> falseGrantEvidence = modes ? ModeRules.falseGrants(granted, faults) : falseGrants(granted, faults);
        evidence.addAll(falseGrantEvidence);
        List<String> reused = reusedTokenGrants(events);
        reused.stream().limit(10).forEach(r -> evidence.add("token reused: " + r));

        Clock clock = Clock.forRun(fault);
        List<String> validity = new ArrayList<>(modes ? ModeRules.validityOverlaps(granted, clock)
                : validityOverlaps(granted, clock));
        validity.addAll(ModeRules.tornReads(events));
        validity.stream().limit(10).forEach(evidence::add);
        long samples = events.stream().filter(e -> e.type().equals("VALID")).count();

        return new RunResult(backend, fault, workload, seed, keys, server, seconds, workers, leaseMs, faults.size(),
                log.size(), accepted, rejected, staleAccepted, lostUpdates, falseGrantEvidence.size(), reused.size(),
                modes ? ModeRules.overlaps(events) : overlaps(events), samples, validity.size(), clock, victimWritesRejected(fault, events, faults),
                onLostFired(fault, workload, events, faults), measuredTakeovers(events, faults, leaseMs), orphans, evidence,
                new FaultFigures(victimsRecovered(events, faults),
                        events.stream().filter(e -> e.type().equals("LOST")).count(), acquireMillis(events),
                        fault == Fault.CLIENT_CLOCK_JUMP ? events.stream()
                                .mapToLong(e -> Math.abs(e.wallSkewMillis())).max().orElse(0) : 0,
                        workload == Workload.LEADER ? elections : 0, regressions.size(), outOfOrder.size()));
    }

    /**
     * Stale writes accepted, two independent ways: (a) an accepted token below one the ledger had
     * already logged for the key; (b) an accepted token below one some worker had already READ
     * (its read raised the key's token) before the write landed. (b) compares worker and database
     * clocks on the same machine, and only counts reads logged before the write, so it can miss a
     * violation but never invent one. One evidence line per stale write.
     */
    static List<String> staleWritesAccepted(List<LogRow> log, List<WorkerEvent> events) {
        List<String> found = new ArrayList<>();
        Map<String, Long> highestLogged = new HashMap<>();
        for (LogRow row : log) {
            long highest = highestLogged.getOrDefault(row.key(), 0L);
            boolean stale = row.accepted() && row.token() < highest;
            if (!stale && row.accepted()) {
                stale = events.stream().anyMatch(e -> e.type().equals("READ") && e.key().equals(row.key())
                        && e.token() > row.token() && e.at() < row.writtenAt());
            }
            if (stale) {
                found.add("stale write accepted: ledger_log id " + row.id() + " " + row);
            }
            highestLogged.put(row.key(), Math.max(highest, row.token()));
        }
        return found;
    }

    /**
     * Leader workload: accepted writes, in the ledger's order, whose epoch is below one the ledger
     * had already accepted for the key - a deposed leader's write taken after its successor's.
     * Judged on the ledger's log alone, no clocks.
     */
    static List<String> writesOutOfEpochOrder(List<LogRow> log) {
        List<String> found = new ArrayList<>();
        Map<String, LogRow> highestAccepted = new HashMap<>();
        for (LogRow row : log) {
            if (!row.accepted()) {
                continue;
            }
            LogRow highest = highestAccepted.get(row.key());
            if (highest != null && row.token() < highest.token()) {
                found.add("write accepted out of epoch order: " + row.worker() + "'s epoch " + row.token()
                        + " (ledger_log id " + row.id() + ") after " + highest.worker() + "'s epoch " + highest.token()
                        + " (id " + highest.id() + ") on " + ChaosKeys.quoted(row.key()));
            } else {
                highestAccepted.put(row.key(), row);
            }
        }
        return found;
    }

    /**
     * Leader workload: pairs of elections of one key where the later has an epoch not above the
     * earlier's. A worker logs ACQUIRED (token = epoch) when it first sees its epoch, with the
     * monotonic time read before it asked ({@code value}) and after ({@code mono}); an election
     * counts as later only when it was first seen after the other's ACQUIRED was logged (its
     * {@code value} after the other's {@code mono}), so a worker stopped between the two reads
     * can hide a regression but never invent one. Monotonic times: not judged in
     * {@link Fault#CLOCK_SKEW} runs, where libfaketime fakes them per worker (the ledger's order,
     * {@link #writesOutOfEpochOrder}, still is).
     */
    static List<String> epochRegressions(List<WorkerEvent> events) {
        List<WorkerEvent> elected = events.stream().filter(e -> e.type().equals("ACQUIRED"))
                .sorted(Comparator.comparingLong(WorkerEvent::mono)).toList();
        List<String> found = new ArrayList<>();
        for (WorkerEvent later : elected) {
            for (WorkerEvent earlier : elected) {
                if (earlier != later && earlier.key().equals(later.key()) && earlier.mono() < later.value()
                        && later.token() <= earlier.token()) {
                    found.add("epoch regression: " + later.worker() + " elected with epoch " + later.token() + " at "
                            + later.at() + " after " + earlier.worker() + " was elected with epoch "
                            + earlier.token() + " at " + earlier.at() + " on " + ChaosKeys.quoted(later.key()));
                    break;
                }
            }
        }
        return found;
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
                // ends at the first write outcome or release of that key after the grant, the
                // cycle's error or the worker's end (or with its last event, if it was killed).
                long to = Long.MAX_VALUE;
                for (int j = i + 1; j < mine.size(); j++) {
                    WorkerEvent e = mine.get(j);
                    String type = e.type();
                    boolean sameKey = e.key().equals(acquired.key()) && e.token() == acquired.token();
                    if (sameKey && (type.equals("WRITE_OK") || type.equals("WRITE_REJECTED")
                            || type.equals("RELEASED") || type.equals("RELEASE_FAILED"))
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

    private static List<String> reusedTokenGrants(List<WorkerEvent> events) {
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
     * The clock the validity overlaps are judged on: the host's monotonic clock
     * ({@code CLOCK_MONOTONIC}, read by every JVM on the host alike and never stepped), except
     * in a {@link Fault#CLOCK_SKEW} run, where libfaketime fakes the skewed workers' monotonic
     * clock as well (it reads as their faked wall clock): there the workers' wall clocks with
     * each worker's known offset taken back out.
     */
    public enum Clock {
        MONOTONIC, WALL_MINUS_OFFSET;

        static Clock forRun(Fault fault) {
            return fault == Fault.CLOCK_SKEW ? WALL_MINUS_OFFSET : MONOTONIC;
        }

        /** An event's time on this clock, in nanos. */
        long nanos(WorkerEvent e) {
            return this == MONOTONIC ? e.mono() : e.wallMicros() * 1000;
        }
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
    static List<String> validityOverlaps(List<WorkerEvent> events, Clock clock) {
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
    private static long victimWritesRejected(Fault fault, List<WorkerEvent> events, List<InjectedFault> faults) {
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
        return measuredTakeovers(events, faults, leaseMs).stream().map(Takeover::millis).toList();
    }

    /** A measured takeover and the victim's lease it is bounded by. */
    record Takeover(long millis, long victimLeaseMs) {
    }

    /**
     * As {@link #takeovers}, each with the victim hold's lease: the longest of the default
     * lease and every lease the hold asked for (an explicit lease, an extend - also one whose
     * outcome the victim did not log before the fault, or that failed: the server may have
     * applied it). A shorter explicit or extended lease does not lower it: a server may keep a
     * hold longer than asked (etcd keeps at least 2 s). For server faults, the default lease.
     */
    static List<Takeover> measuredTakeovers(List<WorkerEvent> events, List<InjectedFault> faults, long leaseMs) {
        List<Takeover> takeovers = new ArrayList<>();
        for (InjectedFault f : faults) {
            if (f.fault().jumpsClock()) {
                // Nothing was taken down: nothing to recover from.
                continue;
            }
            if (f.fault().target() == Fault.Target.SERVER) {
                events.stream().filter(e -> e.type().equals("ACQUIRED") && e.at() >= f.endedAt())
                        .mapToLong(WorkerEvent::at).min()
                        .ifPresent(at -> takeovers.add(new Takeover(at - f.at(), leaseMs)));
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
                    .ifPresent(grant -> takeovers.add(new Takeover(grant.at() - f.at(), victimLease)));
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
