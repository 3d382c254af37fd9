package dev.mortise.lock.bench.report.chart;

import dev.mortise.lock.bench.common.Groups;
import dev.mortise.lock.bench.common.HandoffResult;

import java.util.List;

/** The chart of one contended handoff table (one backend, one thread count). */
public final class HandoffChart {

    private HandoffChart() {
    }

    /** Cross-JVM handoff p50 (bar) with p99 (tick), and the grants with their split over the two JVMs. */
    public static BarChart of(String group, int threads, List<HandoffResult> cell) {
        return new BarChart("Contended handoff, " + Groups.title(group) + ", " + threads + " threads ("
                + threads / 2 + " per JVM)",
                new BarChart.Column("cross-JVM handoff p50 (bar), p99 (tick)", Units::micros),
                new BarChart.Column("grants (JVM 1 / JVM 2)", Units::axis))
                .section(null, cell.stream().map(r -> new BarChart.Row(r.label(), r.role(),
                        r.crossHandoffs() > 0 ? BarChart.Bar.latency(r.crossP50(), r.crossP99())
                                : BarChart.Bar.of(Double.NaN, "—"),
                        BarChart.Bar.of(r.grants(), Units.whole(r.grants(), "") + " (" + Units.whole(r.grantsJvm0(), "")
                                + " / " + Units.whole(r.grantsJvm1(), "") + ")"))).toList());
    }
}
