package dev.mortise.lock.bench.report;

import static dev.mortise.lock.bench.report.Page.count;
import static dev.mortise.lock.bench.report.Page.decimal;
import static dev.mortise.lock.bench.report.Page.grouped;
import static dev.mortise.lock.bench.report.Page.title;

import dev.mortise.lock.bench.common.WaitersResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The benchmark page's table of many waiters at once (threads, heap, drain); and its targets (issue 32). */
final class WaitersSection {

    private WaitersSection() {
    }

    static void write(RunReport report, Page page) {
        if (report.waiters.isEmpty()) {
            return;
        }
        page.line("## Many waiters at once");
        page.line("");
        page.line("A holder client takes 100 keys; then W waiters wait for them (waiter i for key i mod 100) through "
                + "another client, and each lets its key go as soon as it has it. \"Threads\" are the JVM's live "
                + "platform threads while the waiters wait (after 2 s, all of them sent and asleep) minus those "
                + "before the library's clients were made (so its connections' and pools' threads count), at 1,000 "
                + "and at 10,000 waiters: waiting without a thread means the two are the same, and small. \"Heap\" is the "
                + "growth of the used heap after full GCs while 10,000 wait, per waiter (a blocked platform "
                + "thread also costs its stack, which is not heap). \"Drain\" runs from the holder letting the 100 "
                + "keys go until all 10,000 waiters have had theirs. Mortise's waiters of one key in one client "
                + "queue at its local gate, so one request per key reaches the server; Redisson's each wait on "
                + "the key's channel. Measured by `./scripts/benchmark.sh --scenarios waiters`.");
        page.line("");
        page.line("| backend | library | threads at 1,000 waiters | threads at 10,000 waiters | heap bytes / waiter "
                + "| drain s |");
        page.line("|---|---|---:|---:|---:|---:|");
        for (WaitersResult r : report.waiters) {
            page.line(String.format("| %s | %s | %s | %s | %s | %s |", title(r.group()), r.label(),
                    count(r.threadsFew()), count(r.threadsMany()), grouped(r.heapBytesPerWaiter()),
                    decimal(r.drainSeconds())));
        }
        page.line("");
    }

    /** Issue 32's targets for each group's async row: threads independent of waiters, ≤ 2 KiB, drain ≤ blocking. */
    static List<Targets.Check> checks(RunReport report) {
        List<Targets.Check> checks = new ArrayList<>();
        for (WaitersResult async : report.waiters) {
            if (!async.id().endsWith("/mortise-async")) {
                continue;
            }
            String group = async.group();
            // A pool may start a spare thread between the two rounds: a few threads of slack, not one per waiter.
            // Fewer threads than waiting keys besides: one request per key reaches the server (the local gate
            // queues the rest), so a thread per server wait would also look flat across the two rounds.
            boolean flat = async.threadsMany() <= async.threadsFew() + 4 && async.threadsFew() < async.keys();
            checks.add(new Targets.Check(group + ": acquireAsync threads independent of the number of waiters, "
                    + "fewer than the waiting keys",
                    String.format("+%d at %,d waiters, +%d at %,d", async.threadsFew(), async.fewWaiters(),
                            async.threadsMany(), async.waiters()), Targets.verdict(flat)));
            checks.add(new Targets.Check(group + ": ≤ 2 KiB heap per async waiter",
                    String.format("%.0f bytes per waiter", async.heapBytesPerWaiter()),
                    Targets.verdict(async.heapBytesPerWaiter() <= 2048)));
            Optional<WaitersResult> blocking = report.waiters.stream()
                    .filter(r -> r.id().equals(group + "/mortise-blocking")).findFirst();
            checks.add(new Targets.Check(group + ": async drain time no worse than the blocking path",
                    blocking.map(b -> String.format("%.2f s async, %.2f s blocking", async.drainSeconds(),
                            b.drainSeconds())).orElse("blocking path not measured"),
                    blocking.map(b -> Targets.verdict(async.drainSeconds() <= b.drainSeconds())).orElse("n/a")));
        }
        return checks;
    }
}
