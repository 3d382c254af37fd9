package dev.mortise.lock.bench.report.chart;

import dev.mortise.lock.bench.common.OverheadResult;
import dev.mortise.lock.bench.common.Role;

import java.util.List;

/** The chart of the annotation-overhead table: JMH average ns per call, the 99.9 % error as a tick. */
public final class OverheadChart {

    private OverheadChart() {
    }

    public static BarChart of(List<OverheadResult> rows) {
        return new BarChart("Annotation overhead (JMH, in-process backend): ns per call",
                new BarChart.Column("ns/call (bar), + error 99.9 % (tick)", Units::axis))
                .floorLegend("baseline (no lock, no proxy)")
                .section(null, rows.stream().map(r -> new BarChart.Row(r.benchmark(),
                        // "unlocked" is the method without lock or proxy: the floor the others are measured from.
                        r.benchmark().equals("unlocked") ? Role.FLOOR : Role.MORTISE,
                        new BarChart.Bar(r.nsPerCall(), r.nsPerCall() + r.error(),
                                Units.axis(r.nsPerCall()) + " ns ± " + Units.axis(r.error())))).toList());
    }
}
