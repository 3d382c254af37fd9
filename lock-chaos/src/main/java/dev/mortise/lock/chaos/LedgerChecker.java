package dev.mortise.lock.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the ledger, its log and the workers' events after a run and computes the safety
 * figures of one backend × fault. It judges only from what was recorded: the ledger log
 * (PostgreSQL's clock) and the worker events (the workers' clocks, the same machine's).
 */
public final class LedgerChecker {

    private record LogRow(long id, String key, String worker, long token, long valueRead, long valueWritten,
                          boolean accepted, long writtenAt) {
    }

    private record Interval(String worker, long token, long from, long to) {
    }

    private LedgerChecker() {
    }

    /** Computes the figures; the connection is the ledger's. */
    public static RunResult check(String backend, Fault fault, int seconds, int workers, Connection ledger,
                                  List<WorkerEvent> events, List<InjectedFault> faults, long orphans)
            throws SQLException {
        List<LogRow> log = new ArrayList<>();
        try (Statement s = ledger.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, key, worker, token, value_read, value_written, accepted,"
                     + " (extract(epoch FROM written_at) * 1000)::bigint FROM ledger_log ORDER BY id")) {
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

        long accepted = log.stream().filter(LogRow::accepted).count();
        long rejected = log.size() - accepted;

        // Stale accepted, two independent ways: (a) an accepted token below one the ledger had
        // already logged for the key; (b) an accepted token below one some worker had already
        // READ (its read raised the key's token) before the write landed. (b) compares worker
        // and database clocks on the same machine, and only counts reads logged before the
        // write, so it can miss a violation but never invent one.
        long staleAccepted = 0;
        Map<String, Long> highestLogged = new HashMap<>();
        for (LogRow row : log) {
            long highest = highestLogged.getOrDefault(row.key(), 0L);
            boolean stale = row.accepted() && row.token() < highest;
            if (!stale && row.accepted()) {
                stale = events.stream().anyMatch(e -> e.type().equals("READ") && e.key().equals(row.key())
                        && e.token() > row.token() && e.at() < row.writtenAt());
            }
            if (stale) {
                staleAccepted++;
            }
            highestLogged.put(row.key(), Math.max(highest, row.token()));
        }

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
            }
            lastValue.put(row.key(), row.valueWritten());
            acceptedPerKey.merge(row.key(), 1L, Long::sum);
        }
        for (Map.Entry<String, Long> e : finalValues.entrySet()) {
            lostUpdates += Math.abs(e.getValue() - acceptedPerKey.getOrDefault(e.getKey(), 0L));
        }

        return new RunResult(backend, fault, seconds, workers, faults.size(), log.size(), accepted, rejected,
                staleAccepted, lostUpdates, overlaps(events), onLostFired(fault, events, faults),
                pausedWritesRejected(fault, events, faults), takeovers(events, faults), orphans,
                reusedTokens(events));
    }

    /**
     * Grants that repeated a (key, token) pair already granted: every grant must carry a new
     * token, or two holders could both pass the ledger's "token >= highest" check.
     */
    static long reusedTokens(List<WorkerEvent> events) {
        java.util.Set<String> granted = new java.util.HashSet<>();
        return events.stream().filter(e -> e.type().equals("ACQUIRED"))
                .filter(e -> !granted.add(e.key() + "\n" + e.token())).count();
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

    /** For each pause, whether the paused holder logged LOST for the token it held. */
    private static long onLostFired(Fault fault, List<WorkerEvent> events, List<InjectedFault> faults) {
        if (fault != Fault.PAUSE) {
            return 0;
        }
        return faults.stream().filter(f -> events.stream().anyMatch(e -> e.type().equals("LOST")
                && e.worker().equals(f.worker()) && e.key().equals(f.key()) && e.token() == f.token())).count();
    }

    /** For each pause, whether the paused holder's write after SIGCONT was rejected: the fault bit. */
    private static long pausedWritesRejected(Fault fault, List<WorkerEvent> events, List<InjectedFault> faults) {
        if (fault != Fault.PAUSE) {
            return 0;
        }
        return faults.stream().filter(f -> events.stream().anyMatch(e -> e.type().equals("WRITE_REJECTED")
                && e.worker().equals(f.worker()) && e.key().equals(f.key()) && e.token() == f.token())).count();
    }

    /**
     * Millis from the fault to the next grant of the same key to another worker, for each fault
     * after which another worker acquired the key before the run ended (others are unmeasured).
     */
    private static List<Long> takeovers(List<WorkerEvent> events, List<InjectedFault> faults) {
        List<Long> takeovers = new ArrayList<>();
        for (InjectedFault f : faults) {
            // A server kill is measured to the first grant of any key to anyone after the restart:
            // the recovery. (From the kill itself, a grant made just before the kill but logged
            // just after it would count as a takeover of a few milliseconds.)
            boolean server = f.fault() == Fault.SERVER_KILL;
            events.stream()
                    .filter(e -> e.type().equals("ACQUIRED")
                            && (server ? e.at() >= f.endedAt()
                                    : e.at() >= f.at() && e.key().equals(f.key()) && !e.worker().equals(f.worker())))
                    .mapToLong(WorkerEvent::at).min()
                    .ifPresent(at -> takeovers.add(at - f.at()));
        }
        return takeovers;
    }
}
