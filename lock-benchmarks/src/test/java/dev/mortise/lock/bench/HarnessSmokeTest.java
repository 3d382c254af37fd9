package dev.mortise.lock.bench;

import dev.mortise.lock.bench.report.RunReport;
import dev.mortise.lock.bench.run.Notes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness end to end on the in-process backend with tiny counts: it measures, and the
 * report and raw data get written. Correctness of the harness only; the numbers mean nothing.
 */
class HarnessSmokeTest {

    @Test
    void aQuickRunOnTheLocalBackendWritesTheReport(@TempDir Path out) throws Exception {
        BenchmarkMain.Options options = BenchmarkMain.Options.parse("--quick", "--groups", "local",
                "--scenarios", "uncontended,leases,readwrite,multikey", "--out", out.toString());
        RunReport report = BenchmarkMain.run(options, new Notes(line -> { }));
        BenchmarkMain.write(report, out);

        assertThat(report.findings).isEmpty();
        assertThat(report.uncontended).extracting(r -> r.threads()).containsExactly(1, 8);
        assertThat(report.uncontended).allSatisfy(r -> {
            assertThat(r.cycles()).isPositive();
            assertThat(r.allocatedBytesPerCycle()).isPositive(); // HotSpot measures thread allocation
        });
        assertThat(report.manyLeases).singleElement().satisfies(r -> {
            assertThat(r.renewCallsPerPeriod()).isPositive();
            assertThat(r.heapBytesPerLease()).isPositive();
        });
        assertThat(report.keySets).extracting(r -> r.scenario()).containsExactly("readwrite", "multikey");
        assertThat(report.keySets).allSatisfy(r -> {
            assertThat(r.writes()).isPositive();
            assertThat(r.timeouts()).isZero();
        });
        assertThat(report.keySets.get(0).reads()).isPositive();
        String markdown = Files.readString(out.resolve("BENCHMARKS.md"));
        assertThat(markdown).contains("# Mortise benchmarks", "Quick run", "In-process backend, 1 thread",
                "**Mortise**", "## Read-write locks", "## Multi-key locks", "| B/cycle |");
        assertThat(out.resolve("benchmarks/results.json")).isNotEmptyFile();
        assertThat(Files.readString(out.resolve("benchmarks/uncontended.csv"))).contains("alloc_bytes_per_cycle");
        assertThat(out.resolve("benchmarks/latency.png")).isNotEmptyFile();
        // The measured path draws a chart per table too.
        for (String chart : new String[] {"uncontended-local-1.png", "uncontended-local-8.png", "readwrite.png",
                "multikey.png", "many-leases.png"}) {
            assertThat(markdown).contains("](benchmarks/" + chart + ")");
            assertThat(out.resolve("benchmarks").resolve(chart)).isNotEmptyFile();
        }
        assertThat(out.resolve("benchmarks/keysets.csv")).isNotEmptyFile();
    }

    /**
     * Issue 31's scenario, quick, on the in-process backend (two clients of one server): the nested waits
     * with detection on publish wait records and send requests, off send none, and every two-wait cycle is
     * broken with the younger wait the victim.
     */
    @Test
    void aQuickDeadlocksRunMeasuresTheOverheadAndBreaksEveryCycle(@TempDir Path out) throws Exception {
        BenchmarkMain.Options options = BenchmarkMain.Options.parse("--quick", "--groups", "local",
                "--scenarios", "deadlocks", "--out", out.toString());
        RunReport report = BenchmarkMain.run(options, new Notes(line -> { }));
        BenchmarkMain.write(report, out);

        assertThat(report.findings).isEmpty();
        assertThat(report.deadlockOverhead).extracting(r -> r.detection()).containsExactly("off", "on");
        assertThat(report.deadlockOverhead).allSatisfy(r -> assertThat(r.ops()).isPositive());
        assertThat(report.deadlockOverhead.get(0).requests()).isZero();
        assertThat(report.deadlockOverhead.get(1).publishes()).isPositive();
        assertThat(report.deadlockOverhead.get(1).requests()).isGreaterThan(report.deadlockOverhead.get(1).publishes());
        assertThat(report.cycleBreaks).singleElement().satisfies(r -> {
            assertThat(r.broken()).isEqualTo(r.rounds()).isPositive();
            assertThat(r.medianMillis()).isGreaterThanOrEqualTo(r.thresholdMs());
        });
        String markdown = Files.readString(out.resolve("BENCHMARKS.md"));
        assertThat(markdown).contains("## Deadlock detection", "| In-process backend | on |", "broken (younger wait");
        RunReport again = dev.mortise.lock.bench.report.ResultsReader.read(out.resolve("benchmarks/results.json"));
        assertThat(again.deadlockOverhead).isEqualTo(report.deadlockOverhead);
        assertThat(again.cycleBreaks).isEqualTo(report.cycleBreaks);
    }
}
