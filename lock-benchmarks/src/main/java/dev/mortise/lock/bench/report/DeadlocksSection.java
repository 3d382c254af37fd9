package dev.mortise.lock.bench.report;

import static dev.mortise.lock.bench.report.Page.count;
import static dev.mortise.lock.bench.report.Page.decimal;
import static dev.mortise.lock.bench.report.Page.title;
import static dev.mortise.lock.bench.report.Page.whole;

import dev.mortise.lock.bench.common.CycleBreakResult;
import dev.mortise.lock.bench.common.DeadlockOverheadResult;

/** The benchmark page's deadlock detection tables (issue 31): its cost on waits that are no deadlock, and the time to break one. */
final class DeadlocksSection {

    private DeadlocksSection() {
    }

    static void write(RunReport report, Page page) {
        if (report.deadlockOverhead.isEmpty() && report.cycleBreaks.isEmpty()) {
            return;
        }
        page.line("## Deadlock detection");
        page.line("");
        page.line("Measured by `./scripts/benchmark.sh --scenarios deadlocks`, with the client's default setting "
                + "(on, threshold 200 ms, period 500 ms) against `DeadlockDetection.off()`. **Cost on waits that are no "
                + "deadlock**: 8 threads over 2 client processes (JVMs; on the in-process backend, two clients of one "
                + "server in one JVM), each operation taking two of 3 keys in key order (so no deadlock), holding "
                + "them 30 ms and letting go; every pair shares a key, so the operations queue and many waits for the "
                + "second key outlast the threshold while the first is held: those publish a wait record and follow "
                + "the chain every period. \"Acquire\" is one acquire, either key; \"published\" counts wait-record "
                + "publishes, \"requests/s\" every detection request that reached the server (publishes, removes, "
                + "record reads, key inspections), counted at the backend's SPI.");
        page.line("");
        page.line("| backend | detection | ops/s | acquire p50 ms | acquire p99 ms | published | detection requests/s |");
        page.line("|---|---|---:|---:|---:|---:|---:|");
        for (DeadlockOverheadResult r : report.deadlockOverhead) {
            page.line(String.format("| %s | %s | %s | %s | %s | %s | %s |", title(r.group()), r.detection(),
                    decimal(r.opsPerSecond()), decimal(r.acquireP50Millis()), decimal(r.acquireP99Millis()),
                    count(r.publishes()), decimal(r.requestsPerSecond())));
        }
        page.line("");
        if (report.cycleBreaks.isEmpty()) {
            return;
        }
        page.line("**Time to break a cycle**: two processes each hold a key and then wait for the other's, the "
                + "second wait starting 50 ms after the first, round after round; the time runs from the start of "
                + "the younger wait (the victim) to its `LockDeadlockException`. Expected: about the threshold plus "
                + "one period at most (the younger wait is published at the threshold, and the first round that "
                + "sees both records ends it).");
        page.line("");
        page.line("| backend | rounds | broken (younger wait the victim) | threshold ms | period ms | median ms | max ms |");
        page.line("|---|---:|---:|---:|---:|---:|---:|");
        for (CycleBreakResult r : report.cycleBreaks) {
            page.line(String.format("| %s | %s | %s | %s | %s | %s | %s |", title(r.group()), count(r.rounds()),
                    count(r.broken()), count(r.thresholdMs()), count(r.periodMs()), whole(r.medianMillis()),
                    whole(r.maxMillis())));
        }
        page.line("");
    }
}
