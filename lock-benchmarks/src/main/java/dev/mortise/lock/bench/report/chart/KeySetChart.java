package dev.mortise.lock.bench.report.chart;

import dev.mortise.lock.bench.common.KeySetResult;

import java.util.List;

/** The charts of the read-write and the multi-key tables: a section per backend, Mortise beside its peer. */
public final class KeySetChart {

    private KeySetChart() {
    }

    /** Read-write: throughput, read p50 with p99, write p50 with p99. */
    public static BarChart readWrite(List<KeySetResult> rows) {
        return new BarChart("Read-write locks: " + describe(rows) + ", per backend",
                new BarChart.Column("ops/s (reads + writes)", Units::axis),
                new BarChart.Column("read p50 (bar), p99 (tick)", Units::micros),
                new BarChart.Column("write p50 (bar), p99 (tick)", Units::micros))
                .sectionPerGroup(rows, KeySetResult::group, r -> new BarChart.Row(r.label(), r.role(), throughput(r),
                        BarChart.Bar.latency(r.readP50(), r.readP99()), BarChart.Bar.latency(r.writeP50(), r.writeP99())));
    }

    /** Multi-key: throughput, and p50 with p99 of taking and releasing all keys of an op. */
    public static BarChart multiKey(List<KeySetResult> rows) {
        KeySetResult any = rows.get(0);
        return new BarChart("Multi-key locks: " + any.threads() + " threads, " + any.keysPerOp()
                        + " of " + any.keys() + " keys per op, per backend",
                new BarChart.Column("ops/s", Units::axis),
                new BarChart.Column("p50 (bar), p99 (tick)", Units::micros))
                .sectionPerGroup(rows, KeySetResult::group, r -> new BarChart.Row(r.label(), r.role(), throughput(r),
                        BarChart.Bar.latency(r.writeP50(), r.writeP99())));
    }

    private static String describe(List<KeySetResult> rows) {
        KeySetResult any = rows.get(0);
        return any.threads() + " threads, " + any.keys() + " keys, " + any.readPercent() + " % shared";
    }

    private static BarChart.Bar throughput(KeySetResult r) {
        return BarChart.Bar.of(r.opsPerSecond(), Units.whole(r.opsPerSecond(), "ops/s"));
    }
}
