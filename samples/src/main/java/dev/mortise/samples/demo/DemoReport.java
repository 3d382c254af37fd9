package dev.mortise.samples.demo;

import java.time.Duration;
import java.util.Locale;

/**
 * The figures of one demonstration, and their console table.
 *
 * @param backend             the lock backend
 * @param replicas            how the two replicas were built
 * @param accounts            demo accounts shared
 * @param threads             threads over both replicas
 * @param unlocked            the run without the lock
 * @param locked              the run with the lock
 * @param staleWritesAttempted writes tried by a replica whose lease had expired
 * @param staleWritesRejected  of those, refused by the storage's fencing-token check
 */
public record DemoReport(String backend, String replicas, int accounts, int threads, RunFigures unlocked,
                         RunFigures locked, int staleWritesAttempted, int staleWritesRejected) {

    /**
     * One run of concurrent withdrawals.
     *
     * @param operations   withdrawals made
     * @param lostUpdates  withdrawals whose write was overwritten (the balance shows fewer)
     * @param fencedWrites writes refused by the token check during the run
     * @param waitP50      median time to get the lock (zero without a lock)
     * @param waitP99      99th percentile time to get the lock
     * @param elapsed      wall time of the run
     */
    public record RunFigures(int operations, long lostUpdates, int fencedWrites, Duration waitP50, Duration waitP99,
                             Duration elapsed) {
    }

    /** The summary table printed at start-up. */
    public String table() {
        String row = "| %-36s | %14s | %14s |%n";
        String line = "+" + "-".repeat(38) + "+" + "-".repeat(16) + "+" + "-".repeat(16) + "+\n";
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Mortise demonstration on backend '%s': %s, %d threads, %d accounts%n",
                backend, replicas, threads, accounts));
        out.append(line);
        out.append(String.format(Locale.ROOT, row, "", "without lock", "with lock"));
        out.append(line);
        out.append(String.format(Locale.ROOT, row, "withdrawals", unlocked.operations(), locked.operations()));
        out.append(String.format(Locale.ROOT, row, "lost updates", unlocked.lostUpdates(), locked.lostUpdates()));
        out.append(String.format(Locale.ROOT, row, "writes refused by fencing", "-", locked.fencedWrites()));
        out.append(String.format(Locale.ROOT, row, "lock wait p50", "-", millis(locked.waitP50())));
        out.append(String.format(Locale.ROOT, row, "lock wait p99", "-", millis(locked.waitP99())));
        out.append(String.format(Locale.ROOT, row, "elapsed", millis(unlocked.elapsed()), millis(locked.elapsed())));
        out.append(line);
        out.append(String.format(Locale.ROOT, "| %-36s | %31s |%n", "stale writes after an expired lease",
                staleWritesRejected + " of " + staleWritesAttempted + " rejected"));
        out.append(line);
        return out.toString();
    }

    private static String millis(Duration d) {
        return String.format(Locale.ROOT, "%.1f ms", d.toNanos() / 1_000_000.0);
    }
}
