package dev.mortise.lock.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@link ChaosRun}'s command line, parsed. Immutable.
 *
 * @param backends      backend labels as given, canonical ({@link Backends#parse}, the Redis switches
 *                      applied); empty: the plan's default ({@link RunPlan})
 * @param seconds       how long the workers loop per row ({@code --seconds}, default 30)
 * @param shortSeconds  the full plan's added rows ({@code --short-seconds}, default
 *                      {@value RunPlan#SHORT_SECONDS}): see {@link RunPlan#full}
 * @param workers       worker JVMs alive at any time
 * @param faults        {@code --faults}, or null: each workload's {@link Workload#defaultFaults}
 * @param workloads     {@code --workloads}, or null: the full plan (with {@code --faults}: basic, mixed, leader)
 * @param redisSwitches whether {@code --redis-driver lettuce} or {@code --redis-fair} was given
 * @param seed          the seed of the key names
 * @param ledger        how the ledger refuses a stale write
 * @param out           the directory of the JSON result and the worker logs
 * @param doc           the Markdown page to write, or null ({@code --doc none})
 * @param command       how the report says to reproduce the run
 * @param soak          {@code --soak} length, or null
 * @param soakSample    {@code --soak-sample}
 * @param chartFrom     {@code --chart-from} result JSON, or null
 * @param soakChartFrom {@code --soak-chart-from} soak JSON files, or empty
 */
record ChaosOptions(List<String> backends, int seconds, int shortSeconds, int workers, List<Fault> faults,
                    List<Workload> workloads, boolean redisSwitches, long seed, LedgerMode ledger, Path out, Path doc,
                    String command, Duration soak, Duration soakSample, Path chartFrom, List<Path> soakChartFrom) {

    /** The run's settings: 2 keys, lease 2000 ms, critical section 300 ms, the options' seconds, workers and ledger. */
    ChaosRun.Settings settings() {
        return new ChaosRun.Settings(seconds, workers, 2, 2000, 300).withLedger(ledger);
    }

    /**
     * Parses {@code args} (see {@link ChaosRun#main}).
     *
     * @throws IllegalArgumentException for an unknown backend, fault, workload, ledger or driver
     */
    static ChaosOptions parse(String... args) {
        Parser p = new Parser();
        p.command = "java dev.mortise.lock.chaos.ChaosRun " + String.join(" ", args);
        List<String> given = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--redis-fair")) {
                p.fair = true;
            } else if (args[i].startsWith("--")) {
                if (i + 1 == args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                p.option(args[i], args[++i]);
            } else {
                given.add(args[i]);
            }
        }
        List<String> backends = given.stream().map(b -> Backends.parse(b, p.lettuce, p.fair)).distinct().toList();
        if (backends.isEmpty() && (p.lettuce || p.fair)) {
            // The switches name the Redis runs of the default backends, as before the variants were labels.
            backends = Backends.SUPPORTED.stream().map(b -> Backends.label(b, p.lettuce, p.fair)).toList();
        }
        return new ChaosOptions(backends, p.seconds, p.shortSeconds, p.workers, p.faults, p.workloads,
                p.lettuce || p.fair, p.seed, p.ledger, p.out, p.doc, p.command, p.soak, p.soakSample, p.chartFrom,
                p.soakChartFrom);
    }

    /** The options' values while they are read. */
    private static final class Parser {
        int seconds = 30;
        int shortSeconds = RunPlan.SHORT_SECONDS;
        int workers = 3;
        List<Fault> faults;
        List<Workload> workloads;
        boolean lettuce;
        boolean fair;
        long seed = System.currentTimeMillis();
        LedgerMode ledger = LedgerMode.BUILTIN;
        Path out = Path.of("lock-chaos/target/chaos");
        Path doc;
        String command;
        Duration soak;
        Duration soakSample = Duration.ofMinutes(1);
        Path chartFrom;
        List<Path> soakChartFrom = List.of();

        void option(String name, String value) {
            switch (name) {
                case "--seconds" -> seconds = Integer.parseInt(value);
                case "--short-seconds" -> shortSeconds = Integer.parseInt(value);
                case "--workers" -> workers = Integer.parseInt(value);
                case "--faults" -> faults = Arrays.stream(value.split(",")).map(Fault::of).toList();
                case "--workloads", "--workload" -> workloads = Arrays.stream(value.split(","))
                        .map(Workload::of).toList();
                case "--ledger" -> ledger = LedgerMode.of(value);
                case "--redis-driver" -> lettuce = Backends.isLettuce(value);
                case "--seed" -> seed = Long.parseLong(value);
                case "--out" -> out = Path.of(value);
                // "--doc none": no Markdown page, so a trial run leaves the committed one alone.
                case "--doc" -> doc = "none".equals(value) ? null : Path.of(value);
                case "--command" -> command = value;
                case "--chart-from" -> chartFrom = Path.of(value);
                case "--soak-chart-from" -> soakChartFrom = Arrays.stream(value.split(",")).map(Path::of).toList();
                case "--soak" -> soak = Soak.parse(value);
                case "--soak-sample" -> soakSample = Soak.parse(value);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
    }
}
