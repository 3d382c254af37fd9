package dev.mortise.lock.bench.report.chart;

import dev.mortise.lock.bench.common.Groups;
import dev.mortise.lock.bench.common.UncontendedResult;

import java.util.List;

/** Charts of the uncontended acquire + release tables: the overview and one per backend and thread count. */
public final class UncontendedCharts {

    private UncontendedCharts() {
    }

    /**
     * The overview ({@code latency.png}): the 1-thread p50 (bar) and p99 (tick) of every library, a section
     * per backend.
     */
    public static BarChart overview(List<UncontendedResult> all) {
        return new BarChart("Uncontended acquire + release, 1 thread: p50 (bar) and p99 (tick)",
                new BarChart.Column("latency per cycle", Units::micros))
                .sectionPerGroup(all.stream().filter(r -> r.threads() == 1).toList(), UncontendedResult::group,
                        r -> new BarChart.Row(r.label(), r.role(), BarChart.Bar.latency(r.p50(), r.p99())));
    }

    /** One table (one backend, one thread count): p50 with p99, and throughput. */
    public static BarChart table(String group, int threads, List<UncontendedResult> cell) {
        return new BarChart("Uncontended acquire + release, " + Groups.title(group) + ", " + threads
                + (threads == 1 ? " thread" : " threads"),
                new BarChart.Column("p50 (bar), p99 (tick)", Units::micros),
                new BarChart.Column("ops/s, all threads", Units::axis))
                .section(null, cell.stream().map(r -> new BarChart.Row(r.label(), r.role(),
                        BarChart.Bar.latency(r.p50(), r.p99()),
                        BarChart.Bar.of(r.opsPerSecond(), Units.whole(r.opsPerSecond(), "ops/s")))).toList());
    }
}
