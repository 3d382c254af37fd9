package dev.mortise.lock.bench;

import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.bench.jmh.AnnotationOverheadRun;
import dev.mortise.lock.bench.report.Environment;
import dev.mortise.lock.bench.report.MarkdownWriter;
import dev.mortise.lock.bench.report.RawWriter;
import dev.mortise.lock.bench.report.ResultsReader;
import dev.mortise.lock.bench.report.RunReport;
import dev.mortise.lock.bench.report.Versions;
import dev.mortise.lock.bench.report.chart.BarChart;
import dev.mortise.lock.bench.run.DeadlocksRun;
import dev.mortise.lock.bench.run.FenceOverheadRun;
import dev.mortise.lock.bench.run.HandoffRun;
import dev.mortise.lock.bench.run.KeySetRun;
import dev.mortise.lock.bench.run.ManyLeasesRun;
import dev.mortise.lock.bench.run.Notes;
import dev.mortise.lock.bench.run.Timing;
import dev.mortise.lock.bench.run.UncontendedRun;
import dev.mortise.lock.bench.run.WaitersRun;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Runs the benchmarks and writes the report. For each backend group it starts the real
 * server, runs every scenario against it with Mortise and the peers, and stops it; then
 * the JMH annotation-overhead run; then {@code BENCHMARKS.md}, a chart per table and the raw data.
 * With {@code --report-from} it measures nothing: it reads a saved {@code results.json} and renders the
 * page and the charts from it again (for a change of presentation only; the figures stay the run's).
 *
 * <pre>
 * BenchmarkMain [--quick] [--groups redis,postgres,mariadb,zookeeper,etcd]
 *               [--scenarios uncontended,handoff,leases,readwrite,multikey,waiters,deadlocks,annotation]
 *               [--scenarios fence]   (fenced vs unfenced transaction, postgres group only; not in the default
 *                                      set: its figures are printed, not rendered into BENCHMARKS.md)
 *               [--subjects redis/mortise,redis/redisson-rlock] [--out docs]
 *               [--durations 2000,1000[,3000]]   (uncontended warm-up and measured milliseconds, and the
 *                                          handoff run's; after --quick if both: a short single-scenario
 *                                          run for development)
 *               [--command "the command line to print in the report"]
 * BenchmarkMain --report-from docs/benchmarks/results.json [--out docs]
 *               (renders BENCHMARKS.md, the charts and the CSVs from the file; copies it next to them
 *                when --out is elsewhere; ignores the measuring options)
 * </pre>
 */
public final class BenchmarkMain {

    static final List<String> ALL_GROUPS = List.of("redis", "postgres", "mariadb", "zookeeper", "etcd");
    static final List<String> ALL_SCENARIOS = List.of("uncontended", "handoff", "leases", "readwrite", "multikey",
            "waiters", "deadlocks", "annotation");

    private BenchmarkMain() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        Options options = Options.parse(args);
        if (options.reportFrom != null) {
            write(readReport(options), options.out);
            System.out.println("Rendered " + options.out.resolve("BENCHMARKS.md") + " from " + options.reportFrom
                    + " (nothing measured)");
            return;
        }
        RunReport report = run(options, new Notes(System.out::println));
        write(report, options.out);
        System.out.println("Wrote " + options.out.resolve("BENCHMARKS.md"));
        // Peer clients leave non-daemon threads behind (gRPC, Lettuce); the report is written.
        System.exit(0);
    }

    /** Runs what {@code options} select and returns the report (also used by the smoke test). */
    public static RunReport run(Options options, Notes notes) {
        RunReport report = new RunReport();
        report.quick = options.timing.smoke();
        report.command = options.command;
        report.environment.putAll(Environment.describe());
        report.libraries.putAll(Versions.libraries());
        report.cores = Runtime.getRuntime().availableProcessors();
        Endpoints endpoints = new Endpoints();
        for (String group : options.groups) {
            notes.progress("== " + group);
            try (Servers servers = Servers.start(group)) {
                endpoints.put(group, servers.endpoint());
                report.servers.put(group, servers.version());
                if (options.scenarios.contains("uncontended")) {
                    report.uncontended.addAll(new UncontendedRun(options.timing, notes, options::includes).run(group, endpoints, 1, 8));
                }
                if (options.scenarios.contains("handoff")) {
                    servers.ensureRunning(notes);
                    report.handoffs.addAll(new HandoffRun(options.timing, notes, options::includes)
                            .beforeEachSubject(() -> servers.ensureRunning(notes)).run(group, endpoints, 2, 8));
                }
                if (options.scenarios.contains("fence") && group.equals("postgres")) {
                    servers.ensureRunning(notes);
                    new FenceOverheadRun(options.timing, notes).run(servers.endpoint(), "postgres");
                }
                if (options.scenarios.contains("readwrite")) {
                    servers.ensureRunning(notes);
                    notes.progress(" read-write: 8 threads, 4 keys, 90 % shared");
                    report.keySets.addAll(KeySetRun.readWrite(options.timing, notes, options::includes)
                            .run(group, endpoints));
                }
                if (options.scenarios.contains("multikey")) {
                    servers.ensureRunning(notes);
                    notes.progress(" multi-key: 4 threads, 3 of 16 keys per op");
                    report.keySets.addAll(KeySetRun.multiKey(options.timing, notes, options::includes)
                            .run(group, endpoints));
                }
                if (options.scenarios.contains("leases")) {
                    servers.ensureRunning(notes);
                    report.manyLeases.addAll(new ManyLeasesRun(options.timing, notes).run(group, endpoints));
                }
                if (options.scenarios.contains("waiters")) {
                    servers.ensureRunning(notes);
                    report.waiters.addAll(new WaitersRun(options.timing, notes).run(group, endpoints));
                }
                if (options.scenarios.contains("deadlocks")) {
                    servers.ensureRunning(notes);
                    DeadlocksRun deadlocks = new DeadlocksRun(options.timing, notes);
                    try {
                        report.deadlockOverhead.addAll(deadlocks.overhead(group, endpoints));
                        report.cycleBreaks.add(deadlocks.cycles(group, endpoints));
                    } catch (Exception e) {
                        notes.finding("deadlocks " + group + " failed: " + e);
                    }
                }
            } catch (Exception e) {
                notes.finding(group + ": the run failed: " + e);
            }
        }
        if (options.scenarios.contains("annotation")) {
            notes.progress("== annotation overhead (JMH)");
            try {
                report.overhead.addAll(AnnotationOverheadRun.run(options.timing));
                report.overhead.forEach(r -> notes.progress(String.format("  %-10s %8.0f ns/call ± %.0f",
                        r.benchmark(), r.nsPerCall(), r.error())));
            } catch (Exception e) {
                notes.finding("annotation overhead: the JMH run failed: " + e);
            }
        }
        report.environment.put("Load average at end", Environment.loadAverage());
        report.findings.addAll(notes.findings());
        return report;
    }

    /**
     * The saved run {@code options.reportFrom} names, marked as rendered from it (the page says so and keeps
     * the run's command, commit, date and load).
     */
    public static RunReport readReport(Options options) throws java.io.IOException {
        RunReport report = ResultsReader.read(options.reportFrom);
        report.renderedFrom = options.reportFrom.toString();
        report.renderCommand = options.commandGiven ? options.command
                : "BenchmarkMain --report-from " + options.reportFrom;
        return report;
    }

    /**
     * Writes {@code BENCHMARKS.md} into {@code out}, and its charts and raw data into {@code out/benchmarks}.
     * A measured run writes results.json; a re-rendered one ({@link RunReport#renderedFrom}) keeps the file
     * it read, copying it there if it is elsewhere, and rewrites only the CSVs derived from it.
     */
    public static void write(RunReport report, Path out) throws Exception {
        Files.createDirectories(out);
        MarkdownWriter markdown = new MarkdownWriter(report);
        Files.writeString(out.resolve("BENCHMARKS.md"), markdown.render(), StandardCharsets.UTF_8);
        Path raw = out.resolve("benchmarks");
        if (report.renderedFrom == null) {
            RawWriter.write(report, raw);
        } else {
            RawWriter.writeTables(report, raw);
            Path source = Path.of(report.renderedFrom);
            Path target = raw.resolve("results.json");
            if (!Files.exists(target) || !Files.isSameFile(source, target)) {
                Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        for (Map.Entry<String, BarChart> chart : markdown.charts().entrySet()) {
            chart.getValue().write(raw.resolve(chart.getKey()));
        }
    }

    /** Command-line options. */
    public static final class Options {
        List<String> groups = ALL_GROUPS;
        List<String> scenarios = ALL_SCENARIOS;
        Path out = Path.of("docs");
        Timing timing = Timing.fullRun();
        String command = "./scripts/benchmark.sh";
        boolean commandGiven;
        Path reportFrom;
        List<String> subjects = List.of();

        /** Whether subject {@code id} runs: all do unless {@code --subjects} named some. */
        boolean includes(String id) {
            return subjects.isEmpty() || subjects.contains(id);
        }

        public static Options parse(String... args) {
            Options options = new Options();
            List<String> list = new ArrayList<>(Arrays.asList(args));
            for (int i = 0; i < list.size(); i++) {
                switch (list.get(i)) {
                    case "--quick" -> options.timing = Timing.smokeRun();
                    case "--groups" -> options.groups = List.of(list.get(++i).split(","));
                    case "--scenarios" -> options.scenarios = List.of(list.get(++i).split(","));
                    case "--out" -> options.out = Path.of(list.get(++i));
                    case "--command" -> {
                        options.command = list.get(++i);
                        options.commandGiven = true;
                    }
                    case "--report-from" -> options.reportFrom = Path.of(list.get(++i));
                    case "--subjects" -> options.subjects = List.of(list.get(++i).split(","));
                    case "--durations" -> {
                        String[] ms = list.get(++i).split(",");
                        Timing t = options.timing;
                        options.timing = new Timing(java.time.Duration.ofMillis(Long.parseLong(ms[0])),
                                java.time.Duration.ofMillis(Long.parseLong(ms[1])), t.rounds(),
                                ms.length > 2 ? java.time.Duration.ofMillis(Long.parseLong(ms[2])) : t.handoff(),
                                t.leases(), t.leasePeriod(), t.periods(), t.smoke(), t.keySetMeasure());
                    }
                    default -> throw new IllegalArgumentException("unknown option " + list.get(i)
                            + "; see the Javadoc of BenchmarkMain");
                }
            }
            return options;
        }
    }
}
