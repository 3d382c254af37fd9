package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The table run of {@link ChaosRun#main}: every row of a {@link RunPlan} on a fresh lock server,
 * against one ledger server, then the JSON result and the Markdown page ({@link ReliabilityReport}).
 * The JSON is rewritten after every row, so a run cut short keeps what it did.
 */
final class TableRun {

    private final ChaosOptions options;
    private final ChaosRun.Settings settings;
    private final List<String> allKeys;
    private final List<RunResult> results = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();

    private TableRun(ChaosOptions options) {
        this.options = options;
        this.settings = options.settings();
        this.allKeys = ChaosRun.keys(options.seed(), Workload.MIXED, settings);
    }

    /** Runs {@code rows} and writes the result; true if every rule held in every row and none broke. */
    static boolean run(List<RunPlan.Row> rows, ChaosOptions options) throws Exception {
        return new TableRun(options).runAll(rows);
    }

    private boolean runAll(List<RunPlan.Row> rows) throws Exception {
        System.out.println("chaos: keys drawn with --seed " + options.seed() + ": "
                + allKeys.stream().map(ChaosKeys::quoted).toList());
        System.out.println("chaos: " + rows.size() + " runs");
        try (PostgresServer ledgerServer = Cleanup.register(new PostgresServer())) {
            ledgerServer.start();
            try (Ledger ledger = Ledger.connect(ledgerServer.jdbcUrl(), ledgerServer.user())) {
                for (RunPlan.Row row : rows) {
                    runRow(row, ledger, ledgerServer.jdbcUrl());
                    Files.createDirectories(options.out());
                    Files.writeString(options.out().resolve("result.json"), report().json());
                }
            }
        }
        write(report());
        boolean passed = errors.isEmpty() && results.stream().allMatch(RunResult::passed);
        System.out.println(passed ? "chaos: PASSED - every rule held in every run" : "chaos: FAILED - see the table");
        return passed;
    }

    private void runRow(RunPlan.Row row, Ledger ledger, String ledgerUrl) {
        System.out.println("chaos: " + row.label() + " for " + row.seconds() + " s ...");
        long started = System.currentTimeMillis();
        try (BackendServer server = BackendServer.start(Backends.base(row.backend()), row.fault())) {
            Path dir = options.out().resolve(Backends.fileName(row.backend()) + "-" + row.fault().label() + "-"
                    + row.workload().label());
            RunResult result = ChaosRun.run(row.backend(), server, ledger, ledgerUrl, row.fault(), row.workload(),
                    options.seed(), settings.withSeconds(row.seconds()), dir, ChaosRun.workerClasspath());
            System.out.println("chaos: " + result.verdict() + " " + result.toJson());
            results.add(result);
        } catch (Exception e) {
            // One broken run (a server that would not restart) must not lose the others: it is
            // reported as a harness error and fails the whole run.
            e.printStackTrace();
            errors.add(row.label() + ": " + e);
        }
        System.out.println("chaos: " + row.label() + " took " + (System.currentTimeMillis() - started) / 1000 + " s");
    }

    private ReliabilityReport report() {
        return new ReliabilityReport(results, errors, settings, options.command(), options.seed(), allKeys);
    }

    private void write(ReliabilityReport report) throws IOException {
        Files.createDirectories(options.out());
        Files.writeString(options.out().resolve("result.json"), report.json());
        System.out.println("chaos: wrote " + options.out().resolve("result.json"));
        Files.writeString(options.out().resolve(ReliabilityReport.TAKEOVER_SVG), report.takeoverSvg());
        Path doc = options.doc();
        if (doc != null) {
            Files.writeString(doc, report.markdown());
            Path chart = doc.resolveSibling(ReliabilityReport.TAKEOVER_SVG);
            Files.writeString(chart, report.takeoverSvg());
            System.out.println("chaos: wrote " + doc + " and " + chart);
        }
    }
}
