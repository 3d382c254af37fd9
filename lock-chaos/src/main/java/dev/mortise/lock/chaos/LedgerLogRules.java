package dev.mortise.lock.chaos;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link LedgerChecker}'s rules on the ledger's own log (PostgreSQL's order and clock): stale
 * writes accepted and lost updates.
 */
final class LedgerLogRules {

    private LedgerLogRules() {
    }

    /**
     * Stale writes accepted, two independent ways: (a) an accepted token below one the ledger had
     * already logged for the key; (b) an accepted token below one some worker had already READ
     * (its read raised the key's token) before the write landed. (b) compares worker and database
     * clocks on the same machine, and only counts reads logged before the write, so it can miss a
     * violation but never invent one. One evidence line per stale write.
     */
    static List<String> staleWritesAccepted(List<LedgerChecker.LogRow> log, List<WorkerEvent> events) {
        List<String> found = new ArrayList<>();
        Map<String, Long> highestLogged = new HashMap<>();
        for (LedgerChecker.LogRow row : log) {
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
     * Lost updates: each accepted write must have read the previous accepted value, and the
     * final value must equal the number of accepted increments. Adds one evidence line per lost
     * update found to {@code evidence}; returns their count (each key's final value off by n counts n).
     */
    static long lostUpdates(List<LedgerChecker.LogRow> log, Map<String, Long> finalValues, List<String> evidence) {
        long lostUpdates = 0;
        Map<String, Long> lastValue = new HashMap<>();
        Map<String, Long> acceptedPerKey = new HashMap<>();
        for (LedgerChecker.LogRow row : log) {
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
        return lostUpdates;
    }
}
