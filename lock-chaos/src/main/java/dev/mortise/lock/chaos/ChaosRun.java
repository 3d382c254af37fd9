package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The controller of a chaos run: for one backend × fault it resets the ledger, starts the
 * worker JVMs, injects the fault into a worker caught inside its critical section on a fixed
 * schedule, waits for the workers to finish and hands everything to {@link LedgerChecker}.
 *
 * <p>{@link #main} runs every requested backend × fault against fresh real servers and writes
 * the JSON result and {@code docs/RELIABILITY.md} ({@link ReliabilityReport}).
 */
public final class ChaosRun {

    /**
     * How a run is shaped.
     *
     * @param seconds  how long the workers loop
     * @param workers  worker JVMs alive at any time (a killed one is replaced)
     * @param keys     lock keys the workers spread over (fewer keys, more contention)
     * @param leaseMs  the workers' lease (renewed by the client's watchdog while alive)
     * @param csMs     time a worker spends between its read and its write
     * @param fenced   false only for the negative control: the ledger then accepts every write
     */
    public record Settings(int seconds, int workers, int keys, long leaseMs, long csMs, boolean fenced) {

        /** A fenced run. */
        public Settings(int seconds, int workers, int keys, long leaseMs, long csMs) {
            this(seconds, workers, keys, leaseMs, csMs, true);
        }

        /** A pause is twice the lease and a second more, so the lease surely expires during it. */
        public long pauseMs() {
            return 2 * leaseMs + 1000;
        }

        /** Time between faults: a pause plus room for the others to take over and settle. */
        public long faultEveryMs() {
            return pauseMs() + 2000;
        }
    }

    private ChaosRun() {
    }

    /** Runs one backend × fault; every worker is gone when this returns, also on failure. */
    public static RunResult run(String backend, BackendServer server, Ledger ledger, String ledgerUrl, Fault fault,
                                Settings settings, Path dir, String classpath) throws Exception {
        String target = server.target();
        Files.createDirectories(dir);
        String prefix = "chaos-" + backend + "-" + fault.label() + "-" + System.currentTimeMillis() + "-";
        List<String> keys = IntStream.range(0, settings.keys()).mapToObj(i -> prefix + i).toList();
        ledger.reset(keys);

        List<WorkerProcess> all = new ArrayList<>();
        List<WorkerProcess> alive = new ArrayList<>();
        List<InjectedFault> faults = new ArrayList<>();
        long startedAt = System.currentTimeMillis();
        long endAt = startedAt + settings.seconds() * 1000L;
        try {
            for (int i = 0; i < settings.workers(); i++) {
                WorkerProcess w = startWorker("w" + all.size(), backend, target, ledgerUrl, settings.seconds(),
                        settings, keys, dir, classpath);
                all.add(w);
                alive.add(w);
            }
            int next = 0;
            // Faults stop early enough for the last one to play out before the workers end.
            while (fault != Fault.NONE && System.currentTimeMillis() + settings.faultEveryMs() < endAt) {
                long roundStart = System.currentTimeMillis();
                WorkerProcess victim = alive.get(next++ % alive.size());
                WorkerEvent cs = awaitCriticalSection(victim, 5000);
                if (cs != null) {
                    InjectedFault injected = inject(fault, victim, cs, settings, server);
                    faults.add(injected);
                    if (fault == Fault.KILL) {
                        alive.remove(victim);
                        int remaining = (int) ((endAt - System.currentTimeMillis()) / 1000);
                        if (remaining > 2) {
                            WorkerProcess w = startWorker("w" + all.size(), backend, target, ledgerUrl, remaining,
                                    settings, keys, dir, classpath);
                            all.add(w);
                            alive.add(w);
                        }
                    }
                }
                long rest = settings.faultEveryMs() - (System.currentTimeMillis() - roundStart);
                if (rest > 0) {
                    Thread.sleep(rest);
                }
            }
            for (WorkerProcess w : all) {
                // Generous: JVM start-up and a last wait on a loaded two-core machine.
                w.awaitExit(Math.max(0, endAt - System.currentTimeMillis()) + 60_000);
            }
        } finally {
            all.forEach(WorkerProcess::close);
        }
        List<WorkerEvent> events = new ArrayList<>();
        all.forEach(w -> events.addAll(w.events()));
        // Every worker is gone: once a lease (and a ZooKeeper session, 1.5 leases) has run out,
        // whatever is still held is an orphan.
        Thread.sleep(2 * settings.leaseMs() + 1000);
        long orphans = server.heldLocks();
        return LedgerChecker.check(backend, fault, settings.seconds(), settings.workers(), ledger.connection(),
                events, faults, orphans);
    }

    private static WorkerProcess startWorker(String id, String backend, String target, String ledgerUrl, int seconds,
                                             Settings settings, List<String> keys, Path dir, String classpath)
            throws IOException {
        return WorkerProcess.start(id, classpath, dir, List.of(backend, target, ledgerUrl, id,
                Integer.toString(seconds), Long.toString(settings.leaseMs()), Long.toString(settings.csMs()),
                String.join(",", keys), settings.fenced() ? "fenced" : "unfenced"));
    }

    /** Polls the worker's parsed output until it is between its READ and its write. */
    private static WorkerEvent awaitCriticalSection(WorkerProcess worker, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline && worker.isAlive()) {
            WorkerEvent cs = worker.inCriticalSection();
            if (cs != null) {
                return cs;
            }
            Thread.sleep(2);
        }
        return null;
    }

    private static InjectedFault inject(Fault fault, WorkerProcess victim, WorkerEvent cs, Settings settings,
                                        BackendServer server) throws Exception {
        long at = System.currentTimeMillis();
        switch (fault) {
            case PAUSE -> {
                victim.signal("STOP");
                try {
                    Thread.sleep(settings.pauseMs());
                } finally {
                    victim.signal("CONT");
                }
            }
            case KILL -> victim.signal("KILL");
            case SERVER_KILL -> {
                server.killAndRestart(1000);
                return new InjectedFault(fault, "server", cs.key(), cs.token(), at, System.currentTimeMillis());
            }
            default -> throw new IllegalArgumentException("nothing to inject for " + fault);
        }
        return new InjectedFault(fault, victim.id(), cs.key(), cs.token(), at, System.currentTimeMillis());
    }

    /** The classpath for worker JVMs: surefire's test classpath under a test, else this JVM's. */
    public static String workerClasspath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /**
     * {@code ChaosRun [backend ...] [--seconds N] [--workers N] [--faults pause,kill] [--out DIR]
     * [--doc FILE|none] [--command TEXT]} ({@code --command}: how the report says to reproduce it):
     * every backend × fault on fresh servers, then the JSON result and the Markdown report.
     */
    public static void main(String[] args) throws Exception {
        List<String> backends = new ArrayList<>();
        int seconds = 30;
        int workers = 3;
        List<Fault> faults = List.of(Fault.PAUSE, Fault.KILL, Fault.SERVER_KILL);
        Path out = Path.of("lock-chaos/target/chaos");
        Path doc = null;
        String command = "java dev.mortise.lock.chaos.ChaosRun " + String.join(" ", args);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--workers" -> workers = Integer.parseInt(args[++i]);
                case "--faults" -> faults = java.util.Arrays.stream(args[++i].split(","))
                        .map(Fault::of).toList();
                case "--out" -> out = Path.of(args[++i]);
                case "--doc" -> {
                    // "--doc none": no Markdown page, so a trial run leaves the committed one alone.
                    doc = "none".equals(args[i + 1]) ? null : Path.of(args[i + 1]);
                    i++;
                }
                case "--command" -> command = args[++i];
                default -> backends.add(args[i]);
            }
        }
        if (backends.isEmpty()) {
            backends.addAll(Backends.SUPPORTED);
        }
        Settings settings = new Settings(seconds, workers, 2, 2000, 300);
        List<RunResult> results = new ArrayList<>();
        try (PostgresServer ledgerServer = Cleanup.register(new PostgresServer())) {
            ledgerServer.start();
            try (Ledger ledger = Ledger.connect(ledgerServer.jdbcUrl(), ledgerServer.user())) {
                for (String backend : backends) {
                    try (BackendServer server = BackendServer.start(backend)) {
                        for (Fault fault : faults) {
                            System.out.println("chaos: " + backend + " x " + fault.label() + " for " + seconds + " s ...");
                            RunResult result = run(backend, server, ledger, ledgerServer.jdbcUrl(), fault,
                                    settings, out.resolve(backend + "-" + fault.label()), workerClasspath());
                            System.out.println("chaos: " + result.toJson());
                            results.add(result);
                        }
                    }
                }
            }
        }
        ReliabilityReport report = new ReliabilityReport(results, settings, command);
        Files.createDirectories(out);
        Files.writeString(out.resolve("result.json"), report.json());
        System.out.println("chaos: wrote " + out.resolve("result.json"));
        if (doc != null) {
            Files.writeString(doc, report.markdown());
            System.out.println("chaos: wrote " + doc);
        }
        boolean passed = results.stream().allMatch(RunResult::passed);
        System.out.println(passed ? "chaos: PASSED - no stale write accepted, no lost update, no orphan"
                : "chaos: FAILED - see the table");
        System.exit(passed ? 0 : 1);
    }
}
