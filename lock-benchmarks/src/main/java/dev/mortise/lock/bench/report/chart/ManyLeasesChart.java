package dev.mortise.lock.bench.report.chart;

import dev.mortise.lock.bench.common.ManyLeasesResult;
import dev.mortise.lock.bench.common.Role;

import java.util.List;

/** The chart of the many-leases table: renewal work per period and heap per lease, a section per backend. */
public final class ManyLeasesChart {

    private ManyLeasesChart() {
    }

    public static BarChart of(List<ManyLeasesResult> rows) {
        return new BarChart("Many leases held at once (" + Units.whole(rows.get(0).leases(), "")
                + "): renewal work per period and heap",
                new BarChart.Column("renewal calls / period (SPI)", Units::axis),
                new BarChart.Column("server requests / period, net of idle", Units::axis),
                new BarChart.Column("heap bytes / lease", Units::axis))
                .sectionPerGroup(rows, ManyLeasesResult::group, r -> new BarChart.Row(r.label(),
                        // The table has no role column: Mortise's subject is <group>/mortise, the rest are peers.
                        r.id().endsWith("/mortise") ? Role.MORTISE : Role.PEER,
                        BarChart.Bar.of(r.renewCallsPerPeriod(), Units.decimal(r.renewCallsPerPeriod(), 2)),
                        BarChart.Bar.of(counted(r), Units.decimal(counted(r), 1)),
                        BarChart.Bar.of(r.heapBytesPerLease(), Units.whole(r.heapBytesPerLease(), "B"))));
    }

    /** Server requests per period, or NaN where the server's count was not taken (as the table's "—"). */
    private static double counted(ManyLeasesResult r) {
        return r.serverBaselinePerPeriod() >= 0 ? r.serverCommandsPerPeriod() : Double.NaN;
    }
}
