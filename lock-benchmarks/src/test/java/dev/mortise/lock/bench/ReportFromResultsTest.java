package dev.mortise.lock.bench;

import dev.mortise.lock.bench.report.RunReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code BenchmarkMain --report-from}: the page and a chart per results table rendered from a saved
 * results.json without measuring, from a small fixture in an older format and from the published
 * {@code docs/benchmarks/results.json}, whose re-rendering must reproduce the published figures.
 */
class ReportFromResultsTest {

    private static final Pattern IMAGE = Pattern.compile("!\\[([^\\]]*)]\\(benchmarks/([^)]+\\.png)\\)");
    /** Headings whose tables describe the run rather than measure it: no chart. */
    private static final List<String> NOT_RESULTS = List.of("## Machine and versions", "## Targets (issue 9)");
    private static final Path PUBLISHED = Path.of("../docs/BENCHMARKS.md");
    private static final Path PUBLISHED_RESULTS = Path.of("../docs/benchmarks/results.json");

    @Test
    void anOlderResultsFileRendersEveryTableWithItsChartAndDashesForWhatItLacks(@TempDir Path out) throws Exception {
        Path fixture = Path.of(ReportFromResultsTest.class.getResource("/report/old-results.json").toURI());
        List<String> page = render(fixture, out);

        assertEveryResultsTableHasItsChart(page, out, 8);
        assertThat(page).contains("./scripts/benchmark.sh --groups redis,zookeeper", // the run's command, kept
                "| Mortise commit | abc1234 |", "| Date | 2026-01-02 03:04 UTC |",
                "| Load average at end | 1.00 / 2.00 / 3.00 (1 / 5 / 15 min) |",
                "- etcd: the run failed: a test finding");
        assertThat(page).anyMatch(l -> l.startsWith("> Rendered again without measuring")
                && l.contains("BenchmarkMain --report-from " + fixture));
        assertThat(page).anyMatch(l -> l.startsWith("The machine has **4 cores**")); // from the CPU line
        // No B/cycle in this file: "—", not 0 or NaN.
        assertThat(page).contains("| **Mortise** | 150.0 | 900.0 | 6,000 | — | 1.07× | 0.94× | 1.02× |",
                "| Redis | Redisson RLock | 10,000 | — | — | 100.0 | 0.0 | 719 |",
                "| ZooKeeper | **Mortise** | 8 | 100 | 1179.5 | 4409.8 | 0 | — | — | 0 | 3.00 | — | — | — |");
        assertThat(String.join("\n", page)).doesNotContain("NaN");
        assertThat(out.resolve("benchmarks/results.json")).hasSameTextualContentAs(fixture);
        assertThat(out.resolve("benchmarks/uncontended.csv")).isNotEmptyFile();
    }

    @Test
    void thePublishedResultsRenderAgainToThePublishedFiguresWithAChartPerTable(@TempDir Path out) throws Exception {
        List<String> page = render(PUBLISHED_RESULTS, out);

        assertEveryResultsTableHasItsChart(page, out, 24);
        // Every figure as published: the whole generated part up to the hand-written analysis, but the
        // chart lines and the rendered-from note.
        assertThat(figures(page)).containsExactlyElementsOf(figures(Files.readAllLines(PUBLISHED)));
    }

    private static List<String> render(Path results, Path out) throws Exception {
        BenchmarkMain.Options options = BenchmarkMain.Options.parse("--report-from", results.toString(),
                "--out", out.toString());
        RunReport report = BenchmarkMain.readReport(options);
        BenchmarkMain.write(report, out);
        return Files.readAllLines(out.resolve("BENCHMARKS.md"));
    }

    /** The lines that carry the run's figures: the generated part, without chart links and the rendered-from note. */
    private static List<String> figures(List<String> page) {
        List<String> lines = new ArrayList<>();
        for (String line : page) {
            if (line.equals("## Reading the results")) {
                break;
            }
            if (!line.startsWith("![") && !line.startsWith("> Rendered again")) {
                lines.add(line);
            }
        }
        // Blank lines around a chart link come and go with it.
        lines.removeIf(String::isBlank);
        return lines;
    }

    /**
     * Each heading over a results table is followed by a chart link naming the table, whose file is a PNG
     * ImageIO reads; so are all other chart links (the overview).
     */
    private static void assertEveryResultsTableHasItsChart(List<String> page, Path out, int expected) throws Exception {
        int tables = 0;
        for (int i = 0; i < page.size(); i++) {
            String line = page.get(i);
            if (!line.startsWith("#") || NOT_RESULTS.contains(line) || !sectionHasTable(page, i)) {
                continue;
            }
            tables++;
            String next = page.subList(i + 1, page.size()).stream().filter(l -> !l.isBlank()).findFirst().orElse("");
            Matcher link = IMAGE.matcher(next);
            assertThat(link.matches()).as("a chart link right under %s, found: %s", line, next).isTrue();
            String title = line.replaceFirst("^#+ ", "").replaceFirst(" \\(issue \\d+\\)$", "");
            assertThat(link.group(1)).as("alt text of the chart under %s", line).contains(title);
        }
        assertThat(tables).as("results tables").isEqualTo(expected);
        List<String> files = new ArrayList<>();
        for (String line : page) {
            Matcher link = IMAGE.matcher(line);
            if (link.matches()) {
                files.add(link.group(2));
            }
        }
        assertThat(files).contains("latency.png").doesNotHaveDuplicates().hasSizeGreaterThan(tables);
        for (String file : files) {
            Path png = out.resolve("benchmarks").resolve(file);
            assertThat(png).isNotEmptyFile();
            BufferedImage image = ImageIO.read(png.toFile());
            assertThat(image).as(file + " is a PNG ImageIO reads").isNotNull();
            assertThat(image.getWidth() * image.getHeight()).as(file + " size").isPositive();
        }
    }

    /** Whether the section under heading {@code at} (up to the next heading) holds a markdown table. */
    private static boolean sectionHasTable(List<String> page, int at) {
        for (int i = at + 1; i < page.size() && !page.get(i).startsWith("#"); i++) {
            if (page.get(i).startsWith("|---")) {
                return true;
            }
        }
        return false;
    }
}
