package dev.mortise.lock.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link LedgerChecker}'s rules of the {@link Workload#LEADER} workload: epochs only grow across
 * elections (judged on the workers' monotonic clock), and the ledger took the leaders' writes in
 * epoch order (judged on the ledger's log alone).
 */
final class ElectionRules {

    private ElectionRules() {
    }

    /**
     * Leader workload: accepted writes, in the ledger's order, whose epoch is below one the ledger
     * had already accepted for the key - a deposed leader's write taken after its successor's.
     * Judged on the ledger's log alone, no clocks.
     */
    static List<String> writesOutOfEpochOrder(List<LedgerChecker.LogRow> log) {
        List<String> found = new ArrayList<>();
        Map<String, LedgerChecker.LogRow> highestAccepted = new HashMap<>();
        for (LedgerChecker.LogRow row : log) {
            if (!row.accepted()) {
                continue;
            }
            LedgerChecker.LogRow highest = highestAccepted.get(row.key());
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
}
