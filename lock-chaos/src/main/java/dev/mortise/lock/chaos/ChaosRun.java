package dev.mortise.lock.chaos;

import dev.mortise.lock.tck.server.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
            case MIXED -> drawn.subList(0, MIXED_KEYS);
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
        Workers workers = new Workers(backend, server, ledgerUrl, fault, workload, seed, settings, keys, dir,
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
                    Victim victim = awaitVictim(strike, candidates, next++, 5000);
                    if (victim == null) {
                        break;
                    }
                    injected = inject(strike, victim, settings, server, ledger, clientClock, faults.size());
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

    /** The worker JVMs of one run: started with proxies or skewed clocks as the fault needs. */
    private static final class Workers {
        private final String backend;
        private final BackendServer server;
        private final String ledgerUrl;
        private final Fault fault;
        private final Workload workload;
        private final long seed;
        private final Settings settings;
        private final List<String> keys;
        private final Path dir;
        private final String classpath;
        private final FakeClock.OffsetFile clientClock;
        private final boolean proxied;
        private final List<String> jvmOptions;
        private final List<WorkerProcess> all = new ArrayList<>();
        private final List<WorkerProcess> alive = new ArrayList<>();

        Workers(String backend, BackendServer server, String ledgerUrl, Fault fault, Workload workload, long seed,
                Settings settings, List<String> keys, Path dir, String classpath, FakeClock.OffsetFile clientClock,
                boolean proxied, List<String> jvmOptions) {
            this.backend = backend;
            this.clientClock = clientClock;
            this.proxied = proxied || fault.throughProxy();
            this.jvmOptions = List.copyOf(jvmOptions);
            this.server = server;
            this.ledgerUrl = ledgerUrl;
            this.fault = fault;
            this.workload = workload;
            this.seed = seed;
            this.settings = settings;
            this.keys = keys;
            this.dir = dir;
            this.classpath = classpath;
        }

        void start(int seconds) throws IOException {
            String id = "w" + all.size();
            List<ChaosProxy> proxies = new ArrayList<>();
            String target = server.target();
            if (proxied) {
                for (String endpoint : server.endpoints()) {
                    int colon = endpoint.lastIndexOf(':');
                    proxies.add(ChaosProxy.to(endpoint.substring(0, colon),
                            Integer.parseInt(endpoint.substring(colon + 1))));
                }
                target = server.target(proxies.stream().map(ChaosProxy::hostPort).toList());
            }
            long offset = fault == Fault.CLOCK_SKEW ? CLOCK_OFFSETS_MS[all.size() % CLOCK_OFFSETS_MS.length] : 0;
            WorkerProcess w = WorkerProcess.start(id, classpath, dir, List.of(backend, target, ledgerUrl, id,
                    Integer.toString(seconds), Long.toString(settings.leaseMs()), Long.toString(csMs(fault, settings)),
                    ChaosKeys.toArgument(keys), settings.workerLedgerArgument(), workload.label(),
                    Long.toString(seed + 7919L * all.size())), proxies, offset, clientClock, jvmOptions);
            all.add(w);
            alive.add(w);
        }

        List<WorkerProcess> all() {
            return all;
        }

        List<WorkerProcess> alive() {
            return alive;
        }

        /** Waits until every worker has logged START; returns when the last one did. */
        long awaitStarted(long timeoutMs) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMs;
            while (System.currentTimeMillis() < deadline) {
                List<Long> starts = all.stream().map(w -> w.events().stream().filter(e -> e.type().equals("START"))
                        .mapToLong(WorkerEvent::at).findFirst().orElse(-1)).toList();
                if (starts.stream().allMatch(at -> at >= 0)) {
                    return starts.stream().mapToLong(Long::longValue).max().orElseThrow();
                }
                for (WorkerProcess w : all) {
                    if (!w.isAlive() && w.events().stream().noneMatch(e -> e.type().equals("START"))) {
                        throw new IllegalStateException("worker " + w.id() + " exited with code " + w.exitCode()
                                + " before it started; see " + dir.resolve(w.id() + ".err"));
                    }
                }
                Thread.sleep(20);
            }
            throw new IllegalStateException("worker JVMs did not start within " + timeoutMs + " ms; see " + dir);
        }
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

    /** A worker caught in the state the fault strikes, with the event that shows it (READ or WAIT). */
    private record Victim(WorkerProcess worker, WorkerEvent state) {
    }

    /**
     * Waits for a victim: for holder and server faults a worker between its READ and its write
     * (from the {@code round}-th worker on, in turn), for waiter faults any worker blocked in acquire for
     * at least 200 ms (its request is at the server).
     */
    private static Victim awaitVictim(Fault fault, List<WorkerProcess> alive, int round, long timeoutMs)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        // Holders are struck in turn where possible, so the faults spread over the workers.
        List<WorkerProcess> inTurn = new ArrayList<>();
        for (int i = 0; i < alive.size(); i++) {
            inTurn.add(alive.get((round + i) % alive.size()));
        }
        while (System.currentTimeMillis() < deadline) {
            if (fault.target() == Fault.Target.WAITER) {
                for (WorkerProcess w : alive) {
                    WorkerEvent waiting = w.waitingFor(200);
                    if (waiting != null && w.isAlive()) {
                        return new Victim(w, waiting);
                    }
                }
            } else {
                for (WorkerProcess w : inTurn) {
                    WorkerEvent cs = w.inCriticalSection();
                    if (cs != null && w.isAlive()) {
                        return new Victim(w, cs);
                    }
                }
            }
            Thread.sleep(2);
        }
        return null;
    }

    /**
     * Injects the fault; null when it could not strike as asked (a pause landed after the
     * victim had left its critical section, no renewal went out, the release never came).
     * {@code round} counts the faults injected before (a clock jumps forward first in even rounds).
     */
    private static InjectedFault inject(Fault fault, Victim victim, Settings settings, BackendServer server,
                                        Ledger ledger, FakeClock.OffsetFile clientClock, int round)
            throws Exception {
        WorkerProcess worker = victim.worker();
        WorkerEvent state = victim.state();
        long at = System.currentTimeMillis();
        String who = worker.id();
        switch (fault) {
            case PAUSE, WAITER_PAUSE, CLOCK_SKEW -> {
                worker.signal("STOP");
                try {
                    if (fault != Fault.WAITER_PAUSE && (worker.leftCriticalSection(state)
                            || ledger.writeLogged(worker.id(), state.key(), state.token()))) {
                        // Stopped too late, after its write: not the fault asked for. No record;
                        // the round looks for another victim.
                        return null;
                    }
                    Thread.sleep(settings.pauseMs());
                } finally {
                    worker.signal("CONT");
                }
            }
            case KILL -> worker.signal("KILL");
            case NET_CUT, WAITER_CUT -> {
                worker.proxies().forEach(ChaosProxy::cut);
                try {
                    Thread.sleep(settings.pauseMs());
                } finally {
                    worker.proxies().forEach(ChaosProxy::heal);
                }
            }
            case NET_DELAY -> {
                worker.proxies().forEach(p -> p.delay(settings.leaseMs() * 3 / 4));
                try {
                    Thread.sleep(settings.pauseMs());
                } finally {
                    worker.proxies().forEach(p -> p.delay(0));
                }
            }
            case SERVER_KILL, SERVER_KILL_VOLATILE -> {
                server.killAndRestart(1000);
                who = "server";
            }
            case LEADER_KILL -> who = "leader " + server.killLeaderAndRestart(1000);
            case SILENT_PARTITION -> {
                worker.proxies().forEach(ChaosProxy::silence);
                try {
                    Thread.sleep(settings.pauseMs());
                } finally {
                    // TCP recovers: the held bytes go out late, in order, on the same connections.
                    worker.proxies().forEach(ChaosProxy::heal);
                }
            }
            case RELEASE_KILL -> {
                worker.proxies().forEach(ChaosProxy::holdReplies);
                try {
                    WorkerEvent releasing = awaitReleasing(worker, state, 3000);
                    if (releasing == null) {
                        return null;
                    }
                    // The release request goes out right after the line: wait until the proxy forwarded one.
                    long seen = requestsForwarded(worker);
                    long deadline = System.nanoTime() + 500_000_000L;
                    while (requestsForwarded(worker) == seen && System.nanoTime() - deadline < 0) {
                        Thread.sleep(1);
                    }
                    at = System.currentTimeMillis();
                    worker.signal("KILL");
                } finally {
                    // The victim is dead: the held replies die with its connections.
                    worker.proxies().forEach(ChaosProxy::heal);
                }
            }
            case RENEW_STOP -> {
                if (!stopDuringRenewal(worker, state, settings)) {
                    return null;
                }
                at = System.currentTimeMillis();
                try {
                    Thread.sleep(settings.pauseMs());
                } finally {
                    worker.signal("CONT");
                }
            }
            case SERVER_CLOCK_JUMP -> {
                long jump = round % 2 == 0 ? SERVER_CLOCK_JUMP_MS : -SERVER_CLOCK_JUMP_MS;
                server.jumpClock(jump);
                try {
                    Thread.sleep(settings.pauseMs() / 2);
                } finally {
                    server.jumpClock(0);
                }
                who = "server clock " + (jump > 0 ? "+" : "-") + jump / 1000 * Long.signum(jump) + " s and back";
            }
            case FAILOVER, FAILOVER_WAIT -> {
                long[] promotedAt = new long[1];
                who = server.failover(FAILOVER_LAG_MS, promotedAt);
                // Recovery is timed from the promotion, not from the old master's rejoin.
                return new InjectedFault(fault, who, state.key(), state.token(), at, promotedAt[0]);
            }
            case CLIENT_CLOCK_JUMP -> {
                try {
                    clientClock.set(CLIENT_CLOCK_JUMP_MS);
                    Thread.sleep(settings.pauseMs() / 2);
                    clientClock.set(-CLIENT_CLOCK_JUMP_MS);
                    Thread.sleep(settings.pauseMs() / 2);
                } finally {
                    clientClock.set(0);
                }
                who = "every worker's clock";
            }
            default -> throw new IllegalArgumentException("nothing to inject for " + fault);
        }
        return new InjectedFault(fault, who, state.key(), state.token(), at, System.currentTimeMillis());
    }

    private static long requestsForwarded(WorkerProcess worker) {
        return worker.proxies().stream().mapToLong(ChaosProxy::requestsForwarded).sum();
    }

    /** The victim's RELEASING line for the lock of {@code read}, within {@code timeoutMs}, or null. */
    private static WorkerEvent awaitReleasing(WorkerProcess worker, WorkerEvent read, long timeoutMs)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() - deadline < 0 && worker.isAlive()) {
            WorkerEvent releasing = worker.releasing();
            if (releasing != null && releasing.key().equals(read.key()) && releasing.token() == read.token()) {
                return releasing;
            }
            Thread.sleep(1);
        }
        return null;
    }

    /**
     * Holds the victim's replies until it sends a request before it starts to release (a
     * renewal, a keep-alive, a ping), stops it with the reply in flight and then delivers the
     * reply into the stopped process. False, with the victim running and its proxies healed,
     * when no such request came within a lease or the request was its release.
     */
    private static boolean stopDuringRenewal(WorkerProcess worker, WorkerEvent read, Settings settings)
            throws Exception {
        long before = requestsForwarded(worker);
        worker.proxies().forEach(ChaosProxy::holdReplies);
        try {
            long deadline = System.nanoTime() + settings.leaseMs() * 1_000_000L;
            while (requestsForwarded(worker) == before && worker.releasing() == null
                    && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            if (requestsForwarded(worker) == before || worker.releasing() != null) {
                return false;
            }
            worker.signal("STOP");
            // Output the worker wrote before it stopped is parsed within a moment: a release
            // that went out first is no renewal, not the fault asked for.
            Thread.sleep(100);
            boolean released = worker.events().stream().anyMatch(e -> e.type().equals("RELEASING")
                    && e.at() >= read.at());
            if (released) {
                worker.signal("CONT");
                return false;
            }
            return true;
        } finally {
            // The reply goes into the stopped process's socket: it reads it when continued.
            worker.proxies().forEach(ChaosProxy::heal);
        }
    }

    /** The classpath for worker JVMs: surefire's test classpath under a test, else this JVM's. */
    public static String workerClasspath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /**
     * {@code ChaosRun [backend ...] [--seconds N] [--workers N] [--faults pause,net-cut,...]
     * [--workloads basic,mixed,leader,shared,permits] [--redis-driver redisson|lettuce] [--redis-fair]
     * [--ledger builtin|guard] [--seed N] [--out DIR] [--doc FILE|none]
     * [--command TEXT] [--soak 30m [--soak-sample 1m]] [--chart-from RESULT.json] [--soak-chart-from A.json,B.json]}
     * ({@code --chart-from}: only the takeover chart of an earlier run's JSON, next to {@code --doc};
     * {@code --soak-chart-from}: only the soak picture of soaks run as separate commands, from their
     * {@code soak.json} files; {@code --soak}: the {@link Soak} instead of
     * the fault table, each backend for that long; {@code --ledger}: how the ledger refuses a stale write, {@link LedgerMode};
     * default builtin; {@code --redis-driver}, {@code --redis-fair}: the Redis backend's client library and
     * fair mode, its runs then named {@code redis/lettuce}, {@code redis/fair}, {@code redis/lettuce/fair}
     * ({@link Backends#label}); {@code --workload} is {@code --workloads})
     * ({@code --command}: how the report says to reproduce it; {@code --seed}: the seed of the key
     * names, printed, by default the time): every backend × workload × fault (those that apply;
     * without {@code --faults} the workload's {@link Workload#defaultFaults}) on fresh servers,
     * then the JSON result and the Markdown report. Exits 1 if any rule was broken.
     */
    public static void main(String[] args) throws Exception {
        List<String> backends = new ArrayList<>();
        int seconds = 30;
        int workers = 3;
        List<Fault> faults = null;
        List<Workload> workloads = List.of(Workload.BASIC, Workload.MIXED, Workload.LEADER);
        boolean lettuce = false;
        boolean fair = false;
        long seed = System.currentTimeMillis();
        LedgerMode ledgerMode = LedgerMode.BUILTIN;
        Path out = Path.of("lock-chaos/target/chaos");
        Path doc = null;
        String command = "java dev.mortise.lock.chaos.ChaosRun " + String.join(" ", args);
        java.time.Duration soak = null;
        Path chartFrom = null;
        List<Path> soakChartFrom = List.of();
        java.time.Duration soakSample = java.time.Duration.ofMinutes(1);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--workers" -> workers = Integer.parseInt(args[++i]);
                case "--faults" -> faults = java.util.Arrays.stream(args[++i].split(","))
                        .map(Fault::of).toList();
                case "--workloads", "--workload" -> workloads = java.util.Arrays.stream(args[++i].split(","))
                        .map(Workload::of).toList();
                case "--ledger" -> ledgerMode = LedgerMode.of(args[++i]);
                case "--redis-driver" -> lettuce = Backends.isLettuce(args[++i]);
                case "--redis-fair" -> fair = true;
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--doc" -> {
                    // "--doc none": no Markdown page, so a trial run leaves the committed one alone.
                    doc = "none".equals(args[i + 1]) ? null : Path.of(args[i + 1]);
                    i++;
                }
                case "--command" -> command = args[++i];
                case "--chart-from" -> chartFrom = Path.of(args[++i]);
                case "--soak-chart-from" -> soakChartFrom = java.util.Arrays.stream(args[++i].split(","))
                        .map(Path::of).toList();
                case "--soak" -> soak = Soak.parse(args[++i]);
                case "--soak-sample" -> soakSample = Soak.parse(args[++i]);
                default -> backends.add(args[i]);
            }
        }
        if (backends.isEmpty()) {
            backends.addAll(Backends.SUPPORTED);
        }
        Settings settings = new Settings(seconds, workers, 2, 2000, 300).withLedger(ledgerMode);
        if (chartFrom != null) {
            // Only the takeover chart of an earlier run's JSON, next to --doc (or in --out).
            String json = Files.readString(chartFrom);
            String date = json.replaceAll("(?s)^\\{\"date\":\"([^\"]+)\".*", "$1");
            Path chart = (doc != null ? doc.resolveSibling(ReliabilityReport.TAKEOVER_SVG)
                    : out.resolve(ReliabilityReport.TAKEOVER_SVG));
            Files.createDirectories(chart.toAbsolutePath().getParent());
            Files.writeString(chart, Charts.takeoverSvg(Charts.takeoverBarsFromJson(json),
                    "Takeover after each fault (" + date + ")"));
            System.out.println("chaos: wrote " + chart + " from " + chartFrom);
            System.exit(0);
        }
        if (!soakChartFrom.isEmpty()) {
            // Only the soak picture of earlier soaks' JSON files (soaks run as separate commands).
            List<String> jsons = new ArrayList<>();
            for (Path file : soakChartFrom) {
                jsons.add(Files.readString(file));
            }
            Path chart = doc != null ? doc.resolveSibling(Soak.SOAK_SVG) : out.resolve(Soak.SOAK_SVG);
            Files.createDirectories(chart.toAbsolutePath().getParent());
            Files.writeString(chart, Soak.chartFromJson(jsons));
            System.out.println("chaos: wrote " + chart + " from " + soakChartFrom);
            System.exit(0);
        }
        if (soak != null && (lettuce || fair)) {
            // The soak builds its backends by name: refuse rather than soak Redisson under a variant's command.
            throw new IllegalArgumentException("--soak does not take --redis-driver or --redis-fair (yet)");
        }
        if (soak != null) {
            // The soak writes its own result and picture; the report page stays as it is.
            System.exit(Soak.run(backends, soak, soakSample, settings, seed, out, doc) ? 0 : 1);
        }
        List<String> allKeys = keys(seed, Workload.MIXED, settings);
        System.out.println("chaos: keys drawn with --seed " + seed + ": " + allKeys.stream().map(ChaosKeys::quoted)
                .toList());
        List<RunResult> results = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        try (PostgresServer ledgerServer = Cleanup.register(new PostgresServer())) {
            ledgerServer.start();
            try (Ledger ledger = Ledger.connect(ledgerServer.jdbcUrl(), ledgerServer.user())) {
                for (String backend : backends) {
                    // What the workers build and the results name: redis/lettuce, redis/fair, ...
                    String variant = Backends.label(backend, lettuce, fair);
                    for (Workload workload : workloads) {
                        // Without --faults each workload runs its own faults (the mixed one a few).
                        for (Fault fault : faults != null ? faults : workload.defaultFaults()) {
                            if (!fault.appliesTo(backend)) {
                                continue;
                            }
                            String label = variant + " x " + fault.label() + " x " + workload.label();
                            System.out.println("chaos: " + label + " for " + seconds + " s ...");
                            long started = System.currentTimeMillis();
                            try (BackendServer server = BackendServer.start(backend, fault)) {
                                RunResult result = run(variant, server, ledger, ledgerServer.jdbcUrl(), fault,
                                        workload, seed, settings,
                                        out.resolve(Backends.fileName(variant) + "-" + fault.label() + "-"
                                                + workload.label()),
                                        workerClasspath());
                                System.out.println("chaos: " + result.verdict() + " " + result.toJson());
                                results.add(result);
                            } catch (Exception e) {
                                // One broken run (a server that would not restart) must not lose the
                                // others: it is reported as a harness error and fails the whole run.
                                e.printStackTrace();
                                errors.add(label + ": " + e);
                            }
                            System.out.println("chaos: " + label + " took "
                                    + (System.currentTimeMillis() - started) / 1000 + " s");
                            Files.createDirectories(out);
                            Files.writeString(out.resolve("result.json"),
                                    new ReliabilityReport(results, errors, settings, command, seed, allKeys).json());
                        }
                    }
                }
            }
        }
        ReliabilityReport report = new ReliabilityReport(results, errors, settings, command, seed, allKeys);
        Files.createDirectories(out);
        Files.writeString(out.resolve("result.json"), report.json());
        System.out.println("chaos: wrote " + out.resolve("result.json"));
        Files.writeString(out.resolve(ReliabilityReport.TAKEOVER_SVG), report.takeoverSvg());
        if (doc != null) {
            Files.writeString(doc, report.markdown());
            Path chart = doc.resolveSibling(ReliabilityReport.TAKEOVER_SVG);
            Files.writeString(chart, report.takeoverSvg());
            System.out.println("chaos: wrote " + doc + " and " + chart);
        }
        boolean passed = errors.isEmpty() && results.stream().allMatch(RunResult::passed);
        System.out.println(passed ? "chaos: PASSED - every rule held in every run"
                : "chaos: FAILED - see the table");
        System.exit(passed ? 0 : 1);
    }
}
