package dev.mortise.lock.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The worker JVMs of one run ({@link ChaosRun#run}): started with proxies or skewed clocks as the
 * fault needs; a killed worker is replaced by a fresh one. Used by the controller's thread only.
 */
final class RunWorkers {
    private final String backend;
    private final BackendServer server;
    private final String ledgerUrl;
    private final Fault fault;
    private final Workload workload;
    private final long seed;
    private final ChaosRun.Settings settings;
    private final List<String> keys;
    private final Path dir;
    private final String classpath;
    private final FakeClock.OffsetFile clientClock;
    private final boolean proxied;
    private final List<String> jvmOptions;
    private final List<WorkerProcess> all = new ArrayList<>();
    private final List<WorkerProcess> alive = new ArrayList<>();

    RunWorkers(String backend, BackendServer server, String ledgerUrl, Fault fault, Workload workload, long seed,
            ChaosRun.Settings settings, List<String> keys, Path dir, String classpath, FakeClock.OffsetFile clientClock,
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
        long[] offsets = ChaosRun.CLOCK_OFFSETS_MS;
        long offset = fault == Fault.CLOCK_SKEW ? offsets[all.size() % offsets.length] : 0;
        WorkerProcess w = WorkerProcess.start(id, classpath, dir, List.of(backend, target, ledgerUrl, id,
                Integer.toString(seconds), Long.toString(settings.leaseMs()), Long.toString(ChaosRun.csMs(fault, settings)),
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
