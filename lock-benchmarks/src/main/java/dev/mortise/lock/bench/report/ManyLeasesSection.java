package dev.mortise.lock.bench.report;

import static dev.mortise.lock.bench.report.Page.count;
import static dev.mortise.lock.bench.report.Page.decimal;
import static dev.mortise.lock.bench.report.Page.grouped;
import static dev.mortise.lock.bench.report.Page.title;

import dev.mortise.lock.bench.common.ManyLeasesResult;
import dev.mortise.lock.bench.report.chart.ManyLeasesChart;

/** The benchmark page's table of many leases held at once (renewal work, heap per lease); none without such results. */
final class ManyLeasesSection {

    private ManyLeasesSection() {
    }

    static void write(RunReport report, Page page) {
        if (report.manyLeases.isEmpty()) {
            return;
        }
        page.line("## Many leases held at once");
        page.line("");
        page.chart("many-leases.png", "Many leases held at once: renewal calls and server requests per period, heap "
                + "bytes per lease, per backend and library", ManyLeasesChart.of(report.manyLeases));
        page.line("One client acquires N distinct keys with the watchdog-renewed lease and holds them all. The lease is "
                + "3 s, so the watchdog renews every 1 s (a third of the lease, Redisson's rule); we then count the "
                + "renewal work for a few periods while nothing else happens. \"Renewal calls\" are calls of "
                + "Mortise's core into the backend SPI (`renewAll`); \"server requests\" are what the server itself "
                + "received, minus what it received over the same time with the same client open and nothing "
                + "held (heartbeats, pool checks): Redis `MONITOR` lines (commands run inside Lua scripts not "
                + "counted), ZooKeeper `mntr` packets received, etcd `grpc_server_msg_received_total`, MariaDB "
                + "`Questions` (PostgreSQL's statistics are flushed up to 10 s late, so none there). "
                + "Heap per lease is the growth of the used heap after full GCs, divided by N, with everything "
                + "the client and the backend keep per lock.");
        page.line("");
        page.line("| backend | library | leases | acquire time s | renewal calls / period | server requests / period "
                + "(idle baseline subtracted) | idle baseline / period | heap bytes / lease |");
        page.line("|---|---|---:|---:|---:|---:|---:|---:|");
        for (ManyLeasesResult r : report.manyLeases) {
            boolean counted = r.serverBaselinePerPeriod() >= 0;
            page.line(String.format("| %s | %s | %s | %s | %s | %s | %s | %s |", title(r.group()), r.label(),
                    count(r.leases()), decimal(r.acquireSeconds()),
                    !(r.renewCallsPerPeriod() >= 0) ? "—" : String.format("%.2f", r.renewCallsPerPeriod()),
                    counted ? String.format("%.1f", r.serverCommandsPerPeriod()) : "—",
                    counted ? String.format("%.1f", r.serverBaselinePerPeriod()) : "—", grouped(r.heapBytesPerLease())));
        }
        page.line("");
    }
}
