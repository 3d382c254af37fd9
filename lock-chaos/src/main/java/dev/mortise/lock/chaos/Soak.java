package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The soak ({@code ./scripts/chaos.sh --soak 30m}; not in CI): per backend, one long run of the
 * {@link Workload#MIXED} workload (several keys held at once, explicit and extended leases,
 * slow listeners) with a fault drawn at random from {@link #FAULTS} every round, the worker
 * JVMs sampling their heap after a full collection, threads, open file descriptors and sockets
 * every minute; the kills never strike the first two workers ({@link ChaosRun#SOAK_KEPT}), so
 * their curves span the soak. It fails if a safety column is not 0, a lock is orphaned, or a worker's
 * resources grow ({@link #leak}); the curves are drawn to {@code reliability-soak.svg}.
 */
public final class Soak {

    /**
     * The faults a soak draws from: every one that strikes a worker or a single durable server
     * (the topology-changing ones - a cluster's leader, a volatile server, a jumping server
     * clock, a Sentinel failover - need servers of their own, and a client clock jump needs
     * every worker under libfaketime).
     */
    public static final List<Fault> FAULTS = List.of(Fault.PAUSE, Fault.WAITER_PAUSE, Fault.KILL, Fault.NET_CUT,
            Fault.WAITER_CUT, Fault.NET_DELAY, Fault.SERVER_KILL, Fault.SILENT_PARTITION, Fault.RELEASE_KILL,
            Fault.RENEW_STOP);

    /** How a resource may grow over a soak before it counts as a leak. */
    public record Tolerance(double relative, long absolute) {
    }

    /** Per resource line ({@link ResourceSampler#RESOURCES}): heap +50 % and 8 MiB, threads, fds and sockets a few. */
    static final Map<String, Tolerance> TOLERANCES = Map.of(
            "HEAP_BYTES", new Tolerance(0.5, 8L << 20), "THREADS", new Tolerance(0.2, 4),
            "FDS", new Tolerance(0.2, 8), "SOCKETS", new Tolerance(0.2, 4));

    /** Samples skipped at a worker's start (class loading, pools filling up). */
    static final int WARM_UP = 2;

    /** Samples a worker needs after the warm-up before its curve is judged at all. */
    static final int MIN_SAMPLES = 6;

    private Soak() {
    }

    /**
     * Whether {@code samples} (one per interval) grew beyond {@code tolerance}: after the first
     * {@value #WARM_UP}, the median of the last third exceeds the median of the first third by
     * more than the relative and the absolute slack together. A median, so one busy minute (a
     * fault's reconnects, a stopped worker's backlog) is no leak; thirds, so a slow steady
     * climb is. Empty when there are too few samples to judge, else the verdict.
     */
    public static java.util.Optional<Boolean> leak(List<Long> samples, Tolerance tolerance) {
        if (samples.size() < WARM_UP + MIN_SAMPLES) {
            return java.util.Optional.empty();
        }
        List<Long> judged = samples.subList(WARM_UP, samples.size());
        int third = judged.size() / 3;
        long first = median(judged.subList(0, third));
        long last = median(judged.subList(judged.size() - third, judged.size()));
        return java.util.Optional.of(last > first * (1 + tolerance.relative()) + tolerance.absolute());
    }

    static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    /** Resource → worker → samples, in the order logged. */
    static Map<String, Map<String, List<Long>>> series(List<WorkerEvent> events) {
        Map<String, Map<String, List<Long>>> series = new LinkedHashMap<>();
        for (String resource : ResourceSampler.RESOURCES) {
            series.put(resource, new TreeMap<>());
        }
        for (WorkerEvent e : events) {
            Map<String, List<Long>> perWorker = series.get(e.type());
            if (perWorker != null) {
                perWorker.computeIfAbsent(e.worker(), w -> new ArrayList<>()).add(e.value());
            }
        }
        return series;
    }

    /** The leaks in {@code series}: one line per worker and resource that grew. */
    static List<String> leaks(Map<String, Map<String, List<Long>>> series) {
        List<String> leaks = new ArrayList<>();
        series.forEach((resource, perWorker) -> perWorker.forEach((worker, samples) -> {
            if (leak(samples, TOLERANCES.get(resource)).orElse(false)) {
                leaks.add(worker + " " + resource + " grew: " + samples);
            }
        }));
        return leaks;
    }

    /** Workers with enough samples to be judged. */
    static long judged(Map<String, Map<String, List<Long>>> series) {
        return series.values().stream().flatMap(perWorker -> perWorker.entrySet().stream())
                .filter(e -> e.getValue().size() >= WARM_UP + MIN_SAMPLES).map(Map.Entry::getKey).distinct().count();
    }

    /** {@code 30m}, {@code 90s}, {@code 2h}: the soak's length per backend. */
    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long n = Long.parseLong(t.substring(0, t.length() - 1));
        return switch (t.charAt(t.length() - 1)) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            default -> throw new IllegalArgumentException("soak length '" + text + "': expected e.g. 90s, 30m or 2h");
        };
    }

    /**
     * Soaks every backend in turn for {@code length} each, sampling every {@code sampleEvery};
     * writes {@code soak.json} and the curves to {@code out}, and the curves next to {@code doc}
     * as well when it is given. True when every backend passed.
     */
    static boolean run(List<String> backends, Duration length, Duration sampleEvery, ChaosRun.Settings base,
                       long seed, Path out, Path doc) throws Exception {
        ChaosRun.Settings settings = new ChaosRun.Settings((int) length.toSeconds(), base.workers(), base.keys(),
                base.leaseMs(), base.csMs(), base.fenced(), base.ledger());
        Map<String, Map<String, List<Long>>> all = new LinkedHashMap<>();
        List<String> json = new ArrayList<>();
        boolean passed = true;
        try (PostgresServer ledgerServer = Cleanup.register(new PostgresServer())) {
            ledgerServer.start();
            try (Ledger ledger = Ledger.connect(ledgerServer.jdbcUrl(), ledgerServer.user())) {
                for (String backend : backends) {
                    List<Fault> mix = FAULTS.stream().filter(f -> f.appliesTo(backend)).toList();
                    System.out.println("chaos: soak " + backend + " for " + length + ", faults drawn from "
                            + mix.stream().map(Fault::label).toList());
                    List<WorkerEvent> events = new ArrayList<>();
                    RunResult result;
                    try (BackendServer server = BackendServer.start(backend, Fault.NONE)) {
                        result = ChaosRun.run(backend, server, ledger, ledgerServer.jdbcUrl(), Fault.NONE, mix,
                                List.of("-D" + ResourceSampler.RESOURCE_EVERY_MS + "=" + sampleEvery.toMillis()),
                                Workload.MIXED, seed, settings, out.resolve("soak-" + backend),
                                ChaosRun.workerClasspath(), events);
                    }
                    Map<String, Map<String, List<Long>>> series = series(events);
                    List<String> leaks = leaks(series);
                    long judged = judged(series);
                    List<String> broken = new ArrayList<>(result.safetyViolations());
                    if (result.orphans() != 0) {
                        broken.add(result.orphans() + " orphan(s) on the server");
                    }
                    broken.addAll(leaks);
                    if (judged == 0) {
                        broken.add("no worker lived long enough to judge its resources (" + (WARM_UP + MIN_SAMPLES)
                                + " samples): soak longer");
                    }
                    passed &= broken.isEmpty();
                    System.out.println("chaos: soak " + backend + ": " + (broken.isEmpty() ? "passed" : broken)
                            + "; " + result.faultsInjected() + " faults, " + result.writeAttempts() + " writes, "
                            + judged + " workers judged; " + result.toJson());
                    series.forEach((resource, perWorker) -> perWorker.forEach((worker, samples) ->
                            all.computeIfAbsent(resource, r -> new LinkedHashMap<>()).put(backend + " " + worker,
                                    samples)));
                    json.add(backendJson(backend, broken, series, result.toJson()));
                }
            }
        }
        String svg = Charts.soakSvg(all, "Soak: worker JVM resources, a sample every " + sampleEvery.toSeconds()
                + " s (" + length.toMinutes() + " min per backend; " + String.join(", ", backends) + ")",
                sampleEvery.toSeconds());
        Files.createDirectories(out);
        Files.writeString(out.resolve("soak.json"), soakJson(length, sampleEvery, ReliabilityReport.machine(), json));
        Files.writeString(out.resolve(SOAK_SVG), svg);
        if (doc != null) {
            Files.writeString(doc.resolveSibling(SOAK_SVG), svg);
            System.out.println("chaos: wrote " + doc.resolveSibling(SOAK_SVG));
        }
        System.out.println("chaos: soak " + (passed ? "PASSED" : "FAILED") + "; see " + out.resolve("soak.json"));
        return passed;
    }

    /** A backend's entry starts with its name and verdict (the run's result inside it names the backend too). */
    private static final java.util.regex.Pattern BACKEND = java.util.regex.Pattern.compile(
            "\\{\"backend\":\"([^\"]+)\",\"passed\":.*?\"resources\":(\\{.*?}),\"result\":", java.util.regex.Pattern.DOTALL);
    private static final java.util.regex.Pattern RESOURCE = java.util.regex.Pattern.compile("\"([A-Z_]+)\":\\{([^}]*)}");
    private static final java.util.regex.Pattern WORKER = java.util.regex.Pattern.compile("\"([^\"]+)\":\\[([^\\]]*)]");

    /**
     * The picture of soaks that ran as separate commands (for example two backends at a time,
     * each command with its own {@code --out}): the curves of every {@code soak.json} given, in
     * one chart, as one soak of all their backends would have drawn them.
     *
     * @param jsons the contents of the {@code soak.json} files, in the order to draw them
     * @return the SVG
     * @throws IllegalArgumentException when a file has no backend with resource curves, or the
     *                                  files were sampled at different intervals
     */
    static String chartFromJson(List<String> jsons) {
        Map<String, Map<String, List<Long>>> all = new LinkedHashMap<>();
        List<String> backends = new ArrayList<>();
        java.util.Set<String> samples = new java.util.TreeSet<>();
        java.util.Set<String> lengths = new java.util.TreeSet<>();
        for (String json : jsons) {
            samples.add(json.replaceAll("(?s).*?\"sampleEveryMs\":(\\d+).*", "$1"));
            lengths.add(json.replaceAll("(?s).*?\"lengthSeconds\":(\\d+).*", "$1"));
            java.util.regex.Matcher b = BACKEND.matcher(json);
            boolean any = false;
            while (b.find()) {
                any = true;
                backends.add(b.group(1));
                java.util.regex.Matcher r = RESOURCE.matcher(b.group(2));
                while (r.find()) {
                    java.util.regex.Matcher w = WORKER.matcher(r.group(2));
                    while (w.find()) {
                        List<Long> values = java.util.Arrays.stream(w.group(2).split(",")).map(String::trim)
                                .filter(t -> !t.isEmpty()).map(Long::parseLong).toList();
                        all.computeIfAbsent(r.group(1), k -> new LinkedHashMap<>()).put(b.group(1) + " " + w.group(1),
                                values);
                    }
                }
            }
            if (!any) {
                throw new IllegalArgumentException("no soaked backend with resource curves in a soak.json given to"
                        + " --soak-chart-from (expected the soak.json a --soak run writes to its --out)");
            }
        }
        if (samples.size() != 1) {
            throw new IllegalArgumentException("the soak.json files were sampled every " + samples
                    + " ms: draw only soaks with the same --soak-sample together");
        }
        long sampleSeconds = Long.parseLong(samples.iterator().next()) / 1000;
        String minutes = String.join(" / ", lengths.stream().map(l -> Long.parseLong(l) / 60 + "").toList());
        return Charts.soakSvg(all, "Soak: worker JVM resources, a sample every " + sampleSeconds + " s (" + minutes
                + " min per backend; " + String.join(", ", backends) + ")", sampleSeconds);
    }

    /** The soak picture's file name, next to docs/RELIABILITY.md. */
    public static final String SOAK_SVG = "reliability-soak.svg";

    /** One backend's entry in {@code soak.json}. */
    static String backendJson(String backend, List<String> broken, Map<String, Map<String, List<Long>>> series,
                              String resultJson) {
        return "{\"backend\":\"" + backend + "\",\"passed\":" + broken.isEmpty() + ",\"broken\":["
                + String.join(",", broken.stream().map(b -> "\"" + b.replace("\"", "'") + "\"").toList())
                + "],\"resources\":" + seriesJson(series) + ",\"result\":" + resultJson + "}";
    }

    /** The whole {@code soak.json}: the soak's length and sampling, the machine, one entry per backend. */
    static String soakJson(Duration length, Duration sampleEvery, String machine, List<String> backends) {
        return "{\"lengthSeconds\":" + length.toSeconds() + ",\"sampleEveryMs\":" + sampleEvery.toMillis()
                + ",\"machine\":\"" + machine.replace("\"", "'") + "\",\"backends\":["
                + String.join(",\n", backends) + "]}\n";
    }

    private static String seriesJson(Map<String, Map<String, List<Long>>> series) {
        List<String> parts = new ArrayList<>();
        series.forEach((resource, perWorker) -> {
            List<String> workers = new ArrayList<>();
            perWorker.forEach((worker, samples) -> workers.add("\"" + worker + "\":" + samples));
            parts.add("\"" + resource + "\":{" + String.join(",", workers) + "}");
        });
        return "{" + String.join(",", parts) + "}";
    }
}
