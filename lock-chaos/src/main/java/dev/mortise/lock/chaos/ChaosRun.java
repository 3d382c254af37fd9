package dev.mortise.lock.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The controller of a chaos run: for one backend × fault it resets the ledger, starts the
 * worker JVMs, injects the fault into a worker caught inside its critical section on a fixed
 * schedule, waits for the workers to finish and hands everything to {@link LedgerChecker}.
 *
 * <p>{@link #main} runs every requested backend × fault × workload ({@link RunPlan}) against fresh
 * real servers ({@link TableRun}) and writes the JSON result and {@code docs/RELIABILITY.md}
 * ({@link ReliabilityReport}); the workers are {@link RunWorkers}, the faults {@link FaultInjector}'s.
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
     * @param ledger   how a fenced ledger refuses a stale write: its own statement or the fence guard
     */
    public record Settings(int seconds, int workers, int keys, long leaseMs, long csMs, boolean fenced,
                           LedgerMode ledger) {

        /** A fenced run with the builtin ledger. */
        public Settings(int seconds, int workers, int keys, long leaseMs, long csMs) {
            this(seconds, workers, keys, leaseMs, csMs, true);
        }

        /** With the builtin ledger, fenced or (the negative control) not. */
        public Settings(int seconds, int workers, int keys, long leaseMs, long csMs, boolean fenced) {
            this(seconds, workers, keys, leaseMs, csMs, fenced, LedgerMode.BUILTIN);
        }

        /** The same settings with the ledger refusing stale writes the {@code ledger} way. */
        public Settings withLedger(LedgerMode ledger) {
            return new Settings(seconds, workers, keys, leaseMs, csMs, fenced, ledger);
        }

        /** The same settings with the workers looping for {@code seconds}. */
        public Settings withSeconds(int seconds) {
            return new Settings(seconds, workers, keys, leaseMs, csMs, fenced, ledger);
        }

        /** The worker's ledger argument: {@code unfenced}, {@code fenced} (builtin) or {@code guard}. */
        String workerLedgerArgument() {
            return !fenced ? "unfenced" : ledger == LedgerMode.GUARD ? "guard" : "fenced";
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

    /** Keys of a {@link Workload#MIXED} run (each cycle holds {@link ChaosWorker#MIXED_KEYS_PER_CYCLE} of them). */
    static final int MIXED_KEYS = 3;

    /** Wall-clock offsets the {@link Fault#CLOCK_SKEW} workers get, in turn. */
    static final long[] CLOCK_OFFSETS_MS = {5000, -5000, 0};

    /** Workers a soak never kills (other faults strike them as any other): their curves span the soak. */
    static final java.util.Set<String> SOAK_KEPT = java.util.Set.of("w0", "w1");

    /** How long a {@link Fault#FAILOVER}'s replica lags (is paused) before the master is killed. */
    static final long FAILOVER_LAG_MS = 1000;

    /** How far a {@link Fault#SERVER_CLOCK_JUMP} moves the server's wall clock, forward and back. */
    static final long SERVER_CLOCK_JUMP_MS = 30_000;

    /** How far a {@link Fault#CLIENT_CLOCK_JUMP} moves the workers' wall clocks, each way: three minutes. */
    static final long CLIENT_CLOCK_JUMP_MS = 180_000;

    /** Runs one backend × fault with the basic workload on keys drawn from a fresh seed. */
    public static RunResult run(String backend, BackendServer server, Ledger ledger, String ledgerUrl, Fault fault,
                                Settings settings, Path dir, String classpath) throws Exception {
        return run(backend, server, ledger, ledgerUrl, fault, Workload.BASIC, System.nanoTime(), settings, dir,
                classpath);
    }

    /**
     * The keys of a run: the first {@code settings.keys()} of {@link #MIXED_KEYS} names drawn
     * from {@code seed} for the basic and shared workloads, all of them for the mixed one, the first
     * for the leader one (its group's lock) and the permits one (the semaphore's name).
     */
    public static List<String> keys(long seed, Workload workload, Settings settings) {
        List<String> drawn = ChaosKeys.random(seed, Math.max(settings.keys(), MIXED_KEYS));
        return switch (workload) {
            // Readers and writers of the shared workload spread over the basic workload's keys.
            case BASIC, SHARED -> drawn.subList(0, settings.keys());
            case MIXED, DEADLOCK -> drawn.subList(0, MIXED_KEYS);
            // One group, one leadership lock: the ledger's key is the lock's.
            case LEADER -> drawn.subList(0, 1);
            // One semaphore, named by the key (its lock keys are name#permits or name#permit-i).
            case PERMITS -> drawn.subList(0, 1);
        };
    }

    /**
     * Runs one backend × fault × workload on the keys drawn from {@code seed} ({@link #keys});
     * every worker is gone when this returns, also on failure.
     */
    public static RunResult run(String backend, BackendServer server, Ledger ledger, String ledgerUrl, Fault fault,
                                Workload workload, long seed, Settings settings, Path dir, String classpath)
            throws Exception {
        return run(backend, server, ledger, ledgerUrl, fault, null, List.of(), workload, seed, settings, dir,
                classpath, new ArrayList<>());
    }

    /**
     * The run itself. With {@code mix} (the soak) each round strikes with a fault drawn from
     * it ({@code fault} is then {@link Fault#NONE}, the rules judged are the fault-independent
     * ones) and every worker goes through proxies; {@code workerOptions} are extra JVM options
     * of the workers; {@code events} receives every worker event (for the soak's resource curves).
     */
    static RunResult run(String backend, BackendServer server, Ledger ledger, String ledgerUrl, Fault fault,
                         List<Fault> mix, List<String> workerOptions, Workload workload, long seed,
                         Settings settings, Path dir, String classpath, List<WorkerEvent> events)
            throws Exception {
        Files.createDirectories(dir);
        java.util.Random draw = new java.util.Random(seed);
        List<String> keys = keys(seed, workload, settings);
        System.out.println("chaos: " + backend + " x " + fault.label() + " x " + workload.label() + ": keys of seed "
                + seed + ": " + keys.stream().map(ChaosKeys::quoted).toList());
        ledger.reset(keys);
        // The workers' shared wall clock of a client-clock-jump run; closed with the run.
        FakeClock.OffsetFile clientClock = fault == Fault.CLIENT_CLOCK_JUMP ? FakeClock.OffsetFile.create() : null;
        RunWorkers workers = new RunWorkers(backend, server, ledgerUrl, fault, workload, seed, settings, keys, dir,
                classpath, clientClock, mix != null, workerOptions);

        List<InjectedFault> faults = new ArrayList<>();
        try {
            for (int i = 0; i < settings.workers(); i++) {
                workers.start(settings.seconds());
            }
            // The schedule starts once every worker runs (JVM start-up is slow on a loaded machine).
            long startedAt = workers.awaitStarted(120_000);
            long endAt = startedAt + settings.seconds() * 1000L;
            int next = 0;
            // Faults stop early enough for the last one to play out before the workers end.
            while ((fault != Fault.NONE || mix != null)
                    && System.currentTimeMillis() + settings.faultEveryMs() < endAt) {
                long roundStart = System.currentTimeMillis();
                Fault strike = mix != null ? mix.get(draw.nextInt(mix.size())) : fault;
                InjectedFault injected = null;
                while (injected == null && System.currentTimeMillis() - roundStart < 5000) {
                    // The soak never kills its first workers, so their resource curves span the whole run.
                    List<WorkerProcess> candidates = mix != null && strike.killsVictim()
                            ? workers.alive().stream().filter(w -> !SOAK_KEPT.contains(w.id())).toList()
                            : workers.alive();
                    FaultInjector.Victim victim = FaultInjector.awaitVictim(strike, candidates, next++, 5000);
                    if (victim == null) {
                        break;
                    }
                    injected = FaultInjector.inject(strike, victim, settings, server, ledger, clientClock, faults.size());
                }
                if (injected != null) {
                    faults.add(injected);
                    if (mix != null) {
                        System.out.println("chaos: soak " + backend + ": " + strike.label() + " struck "
                                + injected.worker());
                    }
                    if (strike.killsVictim()) {
                        String killed = injected.worker();
                        workers.alive().removeIf(w -> w.id().equals(killed));
                        int remaining = (int) ((endAt - System.currentTimeMillis()) / 1000);
                        if (remaining > 2) {
                            workers.start(remaining);
                        }
                    }
                }
                long rest = settings.faultEveryMs() - (System.currentTimeMillis() - roundStart);
                if (rest > 0) {
                    Thread.sleep(rest);
                }
            }
            for (WorkerProcess w : workers.all()) {
                // Generous: JVM start-up and a last wait on a loaded two-core machine.
                w.awaitExit(Math.max(0, endAt - System.currentTimeMillis()) + 60_000);
            }
        } finally {
            workers.all().forEach(WorkerProcess::close);
            if (clientClock != null) {
                clientClock.close();
            }
        }
        workers.all().forEach(w -> events.addAll(w.events()));
        // Every worker is gone: once a lease (and a ZooKeeper session, as long) has run out,
        // whatever is still on the server is an orphan.
        Thread.sleep(2 * settings.leaseMs() + 1000);
        long orphans = server.heldLocks();
        return LedgerChecker.check(backend, fault, workload, seed, keys, server.description(), settings.seconds(),
                settings.workers(), settings.leaseMs(), ledger.connection(), events, faults, orphans);
    }


    /**
     * The workers' critical section in a run of {@code fault}: the settings', but at least one
     * lease for {@link Fault#RENEW_STOP}, so that every hold lives through watchdog renewals
     * (the first comes about a third of a lease after the grant, after a short critical section
     * has ended) and one can be caught in its round trip.
     */
    static long csMs(Fault fault, Settings settings) {
        return fault == Fault.RENEW_STOP ? Math.max(settings.csMs(), settings.leaseMs()) : settings.csMs();
    }


    /** The classpath for worker JVMs: surefire's test classpath under a test, else this JVM's. */
    public static String workerClasspath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /**
     * {@code ChaosRun [backend ...] [--seconds N] [--short-seconds N] [--workers N] [--faults pause,net-cut,...]
     * [--workloads basic,mixed,leader,shared,permits] [--redis-driver redisson|lettuce] [--redis-fair]
     * [--ledger builtin|guard] [--seed N] [--out DIR] [--doc FILE|none]
     * [--command TEXT] [--soak 30m [--soak-sample 1m]] [--chart-from RESULT.json] [--soak-chart-from A.json,B.json]}
     * ({@code --chart-from}: only the takeover chart of an earlier run's JSON, next to {@code --doc};
     * {@code --soak-chart-from}: only the soak picture of soaks run as separate commands, from their
     * {@code soak.json} files; {@code --soak}: the {@link Soak} instead of
     * the fault table, each backend for that long; {@code --ledger}: how the ledger refuses a stale write, {@link LedgerMode};
     * default builtin; a backend is {@code redis}, {@code jdbc}, {@code etcd}, {@code zookeeper} or a Redis
     * variant, {@code redis/lettuce}, {@code redis/fair}, {@code redis/lettuce/fair} ({@link Backends#parse});
     * {@code --redis-driver}, {@code --redis-fair}: the Redis backends' client library and
     * fair mode, as if the variant were named; {@code --workload} is {@code --workloads})
     * ({@code --command}: how the report says to reproduce it; {@code --seed}: the seed of the key
     * names, printed, by default the time): the rows of the {@link RunPlan} - without {@code --faults}
     * and {@code --workloads} the full plan, its added rows (the Redis variants, the shared and
     * permits workloads) for {@code --short-seconds} (default {@value RunPlan#SHORT_SECONDS}) -
     * on fresh servers, then the JSON result and the Markdown report. Exits 1 if any rule was broken.
     */
    public static void main(String[] args) throws Exception {
        ChaosOptions options = ChaosOptions.parse(args);
        if (options.chartFrom() != null) {
            ChartCommands.takeover(options.chartFrom(), options.doc(), options.out());
            System.exit(0);
        }
        if (!options.soakChartFrom().isEmpty()) {
            ChartCommands.soak(options.soakChartFrom(), options.doc(), options.out());
            System.exit(0);
        }
        if (options.soak() != null) {
            if (options.redisSwitches() || options.backends().stream().anyMatch(Backends::isVariant)) {
                // The soak builds its backends by name: refuse rather than soak Redisson under a variant's command.
                throw new IllegalArgumentException("--soak does not take a Redis variant (yet)");
            }
            List<String> backends = options.backends().isEmpty() ? Backends.SUPPORTED : options.backends();
            // The soak writes its own result and picture; the report page stays as it is.
            System.exit(Soak.run(backends, options.soak(), options.soakSample(), options.settings(), options.seed(),
                    options.out(), options.doc()) ? 0 : 1);
        }
        System.exit(TableRun.run(RunPlan.of(options), options) ? 0 : 1);
    }
}
