package dev.mortise.lock.bench.report;

import static dev.mortise.lock.bench.report.Page.whole;

import dev.mortise.lock.bench.common.OverheadResult;
import dev.mortise.lock.bench.report.chart.OverheadChart;

/** The benchmark page's annotation overhead table (JMH); none without such results. */
final class OverheadSection {

    private OverheadSection() {
    }

    static void write(RunReport report, Page page) {
        if (report.overhead.isEmpty()) {
            return;
        }
        page.line("## Annotation overhead (JMH)");
        page.line("");
        page.chart("annotation-overhead.png", "Annotation overhead (JMH): ns per call of each benchmark",
                OverheadChart.of(report.overhead));
        page.line("The in-process backend, one thread, one key, acquire and release per call; JMH average time. "
                + "`@DistributedLock` goes through the Spring AOP proxy, the SpEL key and the starter's "
                + "interceptor; the direct call is `LockClient.acquire` + `close` in a try-with-resources.");
        page.line("");
        double direct = report.overhead.stream().filter(r -> r.benchmark().equals("direct"))
                .mapToDouble(OverheadResult::nsPerCall).findFirst().orElse(Double.NaN);
        page.line("| benchmark | what | ns/call | ± (99.9%) | ÷ direct |");
        page.line("|---|---|---:|---:|---:|");
        for (OverheadResult r : report.overhead) {
            page.line(String.format("| %s | %s | %s | %s | %s |", r.benchmark(), r.description(), whole(r.nsPerCall()),
                    whole(r.error()), Ratios.ratio(r.nsPerCall(), direct)));
        }
        page.line("");
        page.line("Annotation overhead (annotated − direct): **" + whole(report.overhead.stream()
                .filter(r -> r.benchmark().equals("annotated")).mapToDouble(OverheadResult::nsPerCall).findFirst()
                .orElse(Double.NaN) - direct) + " ns per call**.");
        page.line("");
    }
}
