package dev.mortise.lock.bench.report;

import static dev.mortise.lock.bench.report.Page.decimal;
import static dev.mortise.lock.bench.report.Page.grouped;
import static dev.mortise.lock.bench.report.Page.name;
import static dev.mortise.lock.bench.report.Page.title;

import dev.mortise.lock.bench.common.Role;
import dev.mortise.lock.bench.common.UncontendedResult;
import dev.mortise.lock.bench.report.chart.UncontendedCharts;
import java.util.List;
import java.util.Optional;

/** The benchmark page's uncontended acquire + release tables: one per group and thread count, each with its chart. */
final class UncontendedSection {

    private UncontendedSection() {
    }

    static void write(RunReport report, Page page) {
        page.line("## Uncontended acquire + release");
        page.line("");
        page.line("Each thread cycles through 1,000 keys of its own (no two threads want the same lock): acquire with "
                + "the library's default renewed lease, release at once. p50/p99 are per cycle; ops/s is "
                + "cycles per second over all threads. B/cycle is the bytes the whole JVM allocated on the heap "
                + "during the measured windows (`ThreadMXBean.getTotalThreadAllocatedBytes`: the benchmark "
                + "threads, the client's I/O and scheduler threads, and a small idle background of the other "
                + "subjects' clients, the same for every row) divided by the cycles; unlike the times it is "
                + "stable on a loaded machine. Ratios compare with the group's floor "
                + "(_italic_ rows; a Lettuce row with the floor on Lettuce) and with the best peer in the same table.");
        page.line("");
        for (String group : Page.groups(report)) {
            for (int threads : new int[] {1, 8}) {
                List<UncontendedResult> cell = Ratios.sameCell(report.uncontended, group, threads);
                if (!cell.isEmpty()) {
                    table(page, group, threads, cell);
                }
            }
        }
    }

    private static void table(Page page, String group, int threads, List<UncontendedResult> cell) {
        Optional<UncontendedResult> bestLatency = Ratios.bestPeerLatency(cell);
        Optional<UncontendedResult> bestThroughput = Ratios.bestPeerThroughput(cell);
        String heading = title(group) + ", " + threads + (threads == 1 ? " thread" : " threads");
        page.line("### " + heading);
        page.line("");
        page.chart("uncontended-" + group + "-" + threads + ".png", "Uncontended acquire + release, " + heading
                + ": p50, p99 and ops/s per library", UncontendedCharts.table(group, threads, cell));
        page.line("| library | p50 µs | p99 µs | ops/s | B/cycle | p50 ÷ floor | p50 ÷ best peer | ops/s ÷ best peer |");
        page.line("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (UncontendedResult r : cell) {
            boolean isFloor = r.role() == Role.FLOOR;
            page.line(String.format("| %s | %s | %s | %s | %s | %s | %s | %s |", name(r.label(), r.role()),
                    decimal(r.p50()), decimal(r.p99()), grouped(r.opsPerSecond()),
                    grouped(r.allocatedBytesPerCycle()),
                    isFloor ? "—" : Ratios.ratio(r.p50(),
                            Ratios.floorFor(cell, r).map(UncontendedResult::p50).orElse(Double.NaN)),
                    isFloor ? "—" : Ratios.ratio(r.p50(),
                            bestLatency.map(UncontendedResult::p50).orElse(Double.NaN)),
                    isFloor ? "—" : Ratios.ratio(r.opsPerSecond(),
                            bestThroughput.map(UncontendedResult::opsPerSecond).orElse(Double.NaN))));
        }
        page.line("");
        bestLatency.ifPresent(b -> page.line("Best peer by p50: " + b.label() + "; by throughput: "
                + bestThroughput.map(UncontendedResult::label).orElse("—") + "."));
        page.line("");
    }
}
