package dev.mortise.lock.bench.report;

import dev.mortise.lock.bench.report.chart.BarChart;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Writes {@code docs/BENCHMARKS.md} from a {@link RunReport}: every number in it comes from the run. Each
 * results table gets a chart, linked right under its heading; {@link #charts()} hands them over to be
 * drawn, so every link has its picture. A figure the report lacks (NaN, a negative count: not measured,
 * or absent from an older results.json) prints "—". One instance renders one page; not thread-safe.
 *
 * <p>The page is its sections in order ({@link HeaderSection}, {@link UncontendedSection},
 * {@link HandoffSection}, {@link KeySetSections}, {@link ManyLeasesSection}, {@link WaitersSection},
 * {@link DeadlocksSection}, {@link OverheadSection}),
 * then the run's findings and the shipped analysis and method text.
 */
public final class MarkdownWriter {

    private final RunReport report;
    private final Page page = new Page();

    public MarkdownWriter(RunReport report) {
        this.report = report;
    }

    /** The page. */
    public String render() {
        HeaderSection.write(report, page);
        UncontendedSection.write(report, page);
        HandoffSection.write(report, page);
        KeySetSections.write(report, page);
        ManyLeasesSection.write(report, page);
        WaitersSection.write(report, page);
        DeadlocksSection.write(report, page);
        OverheadSection.write(report, page);
        findings();
        if (!report.uncontended.isEmpty()) {
            // The analysis and the method are the full run's: a run of other scenarios alone stands on its tables.
            resource("/analysis.md", true);
            resource("/method.md", false);
        }
        return page.text();
    }

    /**
     * The charts the rendered page links, by file name in the {@code benchmarks/} directory next to the page;
     * filled by {@link #render()}.
     */
    public Map<String, BarChart> charts() {
        return page.charts();
    }

    private void findings() {
        if (report.findings.isEmpty()) {
            return;
        }
        page.line("## Missing or failed in this run");
        page.line("");
        for (String finding : report.findings) {
            page.line("- " + finding);
        }
        page.line("");
    }

    /**
     * A shipped Markdown fragment (the analysis, then a blank line; the method section), as it is.
     * Both are optional: without one the tables stand alone.
     */
    private void resource(String name, boolean blankLineAfter) {
        try (InputStream in = MarkdownWriter.class.getResourceAsStream(name)) {
            if (in != null) {
                page.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                if (blankLineAfter) {
                    page.line("");
                }
            }
        } catch (IOException e) {
            // the fragment is optional: the tables stand alone
        }
    }
}
