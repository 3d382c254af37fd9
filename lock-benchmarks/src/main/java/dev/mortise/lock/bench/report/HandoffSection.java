package dev.mortise.lock.bench.report;

import static dev.mortise.lock.bench.report.Page.count;
import static dev.mortise.lock.bench.report.Page.decimal;
import static dev.mortise.lock.bench.report.Page.name;
import static dev.mortise.lock.bench.report.Page.title;

import dev.mortise.lock.bench.common.HandoffResult;
import dev.mortise.lock.bench.common.Role;
import dev.mortise.lock.bench.common.UncontendedResult;
import dev.mortise.lock.bench.report.chart.HandoffChart;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** The benchmark page's contended handoff tables (one key, two JVMs): one per group and thread count; none without handoffs. */
final class HandoffSection {

    private HandoffSection() {
    }

    static void write(RunReport report, Page page) {
        if (report.handoffs.isEmpty()) {
            return;
        }
        page.line("## Contended handoff (one key, two JVMs)");
        page.line("");
        page.line("The threads are split evenly over two JVMs; every thread loops: acquire (waiting), release at once, "
                + "pause 1 ms. A handoff is the time from the start of a release to the grant of an owner that "
                + "was already waiting when the release began (same monotonic clock in both JVMs). "
                + "\"cross-JVM\" counts only handoffs from a holder in one JVM to a waiter in the other: that is "
                + "the distributed part (within one JVM Mortise queues threads locally). A lopsided grant split means "
                + "one JVM kept re-taking the lock while the other waited (no fairness). Libraries that cannot "
                + "wait (ShedLock, the floors) are not in this table. Ratios compare the cross-JVM p50 with the "
                + "group's floor from the uncontended table (two bare round trips, 1 thread; a handoff needs at "
                + "least a release, a notification or poll, and an acquire) and with the best peer's.");
        page.line("");
        for (String group : Page.groups(report)) {
            for (int threads : new int[] {2, 8}) {
                List<HandoffResult> cell = report.handoffs.stream()
                        .filter(r -> r.group().equals(group) && r.threads() == threads).toList();
                if (!cell.isEmpty()) {
                    table(report, page, group, threads, cell);
                }
            }
        }
    }

    private static void table(RunReport report, Page page, String group, int threads, List<HandoffResult> cell) {
        Optional<HandoffResult> best = cell.stream().filter(r -> r.role() == Role.PEER && r.crossHandoffs() > 0)
                .min(Comparator.comparingDouble(HandoffResult::crossP50));
        String heading = title(group) + ", " + threads + " threads (" + threads / 2 + " per JVM)";
        page.line("### " + heading);
        page.line("");
        page.chart("handoff-" + group + "-" + threads + ".png", "Contended handoff, " + heading
                + ": cross-JVM handoff p50 and p99, and grants per library", HandoffChart.of(group, threads, cell));
        Optional<UncontendedResult> floor = Ratios.floor(Ratios.sameCell(report.uncontended, group, 1));
        page.line("| library | grants (JVM 1 / JVM 2) | handoffs | p50 µs | p99 µs | cross-JVM | cross p50 µs "
                + "| cross p99 µs | cross p50 ÷ floor | cross p50 ÷ best peer |");
        page.line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (HandoffResult r : cell) {
            page.line(String.format("| %s | %s (%s / %s) | %s | %s | %s | %s | %s | %s | %s | %s |",
                    name(r.label(), r.role()), count(r.grants()), count(r.grantsJvm0()), count(r.grantsJvm1()),
                    count(r.handoffs()), decimal(r.p50()), decimal(r.p99()), count(r.crossHandoffs()),
                    decimal(r.crossP50()), decimal(r.crossP99()),
                    Ratios.ratio(r.crossP50(), floor.map(UncontendedResult::p50).orElse(Double.NaN)),
                    Ratios.ratio(r.crossP50(), best.map(HandoffResult::crossP50).orElse(Double.NaN))));
        }
        page.line("");
    }
}
