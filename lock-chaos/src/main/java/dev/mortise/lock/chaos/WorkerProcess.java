package dev.mortise.lock.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ChaosWorker} JVM started by the controller: its stdout is copied to a file and
 * parsed into {@link WorkerEvent}s as it arrives, so the controller knows when the worker is
 * inside its critical section (after READ, before its write) and can strike exactly there.
 */
public final class WorkerProcess implements AutoCloseable {

    private final String id;
    private final Process process;
    private final List<WorkerEvent> events = new CopyOnWriteArrayList<>();
    private final List<ChaosProxy> proxies;
    private final long clockOffsetMillis;
    private final boolean timesFromMonotonic;
    private volatile WorkerEvent inCriticalSection;
    private volatile WorkerEvent waiting;
    private volatile WorkerEvent releasing;
    private final Thread reader;

    private WorkerProcess(String id, Process process, Path logFile, List<ChaosProxy> proxies, long clockOffsetMillis,
                          boolean timesFromMonotonic) throws IOException {
        this.id = id;
        this.process = process;
        this.proxies = List.copyOf(proxies);
        this.clockOffsetMillis = clockOffsetMillis;
        this.timesFromMonotonic = timesFromMonotonic;
        PrintWriter out = new PrintWriter(Files.newBufferedWriter(logFile, StandardCharsets.UTF_8), true);
        this.reader = new Thread(() -> pump(out), "chaos-reader-" + id);
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a worker JVM with the given {@link ChaosWorker} arguments (after the worker id). */
    public static WorkerProcess start(String id, String classpath, Path dir, List<String> workerArgs) throws IOException {
        return start(id, classpath, dir, workerArgs, List.of(), 0);
    }

    /**
     * Starts a worker JVM whose lock traffic goes through {@code proxies} (closed with the
     * worker) and whose wall clock is off by {@code clockOffsetMillis} (libfaketime; 0: the
     * machine's clock). The offset is taken back out of its event timestamps, so the checker
     * compares every worker on the machine's clock.
     */
    public static WorkerProcess start(String id, String classpath, Path dir, List<String> workerArgs,
                                      List<ChaosProxy> proxies, long clockOffsetMillis) throws IOException {
        return start(id, classpath, dir, workerArgs, proxies, clockOffsetMillis, null, List.of());
    }

    /**
     * As above, and with {@code jumpingClock} (not null) the worker's wall clock follows that
     * offset file ({@link Fault#CLIENT_CLOCK_JUMP}): its event times are then rebuilt from its
     * monotonic clock, which libfaketime leaves alone there and which every process on the host
     * reads alike, mapped onto the controller's wall clock. {@code jvmOptions} go to the worker JVM
     * before its main class (the soak's {@code -Dmortise.chaos.resourceEveryMs=...}).
     */
    public static WorkerProcess start(String id, String classpath, Path dir, List<String> workerArgs,
                                      List<ChaosProxy> proxies, long clockOffsetMillis,
                                      FakeClock.OffsetFile jumpingClock, List<String> jvmOptions) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classpath, ChaosWorker.class.getName()));
        command.addAll(workerArgs);
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(dir.resolve(id + ".err").toFile());
        if (clockOffsetMillis != 0) {
            builder.environment().putAll(FakeClock.environment(clockOffsetMillis));
        }
        if (jumpingClock != null) {
            builder.environment().putAll(jumpingClock.libfaketimeEnvironment());
        }
        Process process = builder.start();
        return Cleanup.register(new WorkerProcess(id, process, dir.resolve(id + ".out"), proxies, clockOffsetMillis,
                jumpingClock != null));
    }

    private void pump(PrintWriter out) {
        try (out; BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(line);
                WorkerEvent event = WorkerEvent.parse(id, line);
                if (event == null) {
                    continue;
                }
                if (clockOffsetMillis != 0) {
                    event = event.shifted(-clockOffsetMillis);
                }
                if (timesFromMonotonic) {
                    event = event.timedByMonotonic(MONO_TO_WALL_NANOS);
                }
                events.add(event);
                switch (event.type()) {
                    case "WAIT" -> waiting = event;
                    case "ACQUIRED", "WAIT_TIMEOUT", "DEADLOCK" -> waiting = null;
                    // A reader's (shared workload) and a permit holder's sections end without a write.
                    case "READ", "INSIDE" -> inCriticalSection = event;
                    case "WRITE_OK", "WRITE_REJECTED", "READ_AGAIN", "OUTSIDE" -> inCriticalSection = null;
                    case "RELEASING" -> releasing = event;
                    case "RELEASED", "RELEASE_FAILED" -> releasing = null;
                    case "ERROR" -> {
                        inCriticalSection = null;
                        waiting = null;
                        releasing = null;
                    }
                    default -> { }
                }
            }
        } catch (IOException e) {
            // The process died (kill -9): its stream ends, nothing else to read.
        }
    }

    public String id() {
        return id;
    }

    public long pid() {
        return process.pid();
    }

    /**
     * The machine's wall clock minus its monotonic clock, in nanos, read once by the controller
     * (whose clocks are not faked): maps a worker's monotonic reading onto the wall clock.
     */
    private static final long MONO_TO_WALL_NANOS = System.currentTimeMillis() * 1_000_000L - System.nanoTime();

    /** The RELEASING event of the release the worker is in right now (request sent or about to be), or null. */
    public WorkerEvent releasing() {
        return releasing;
    }

    /** The READ event of the critical section the worker is in right now, or null. */
    public WorkerEvent inCriticalSection() {
        return inCriticalSection;
    }

    /**
     * The WAIT event of the acquire the worker has been blocked in for at least
     * {@code forMillis} (so its request is surely at the server), or null.
     */
    public WorkerEvent waitingFor(long forMillis) {
        WorkerEvent w = waiting;
        return w != null && System.currentTimeMillis() - w.at() >= forMillis ? w : null;
    }

    /** The proxies the worker's lock traffic goes through (empty when it connects directly). */
    public List<ChaosProxy> proxies() {
        return proxies;
    }

    /** The worker's wall-clock offset from the machine's, in millis. */
    public long clockOffsetMillis() {
        return clockOffsetMillis;
    }

    public List<WorkerEvent> events() {
        return events;
    }

    /** The exit code, or -1 while it runs. */
    public int exitCode() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Sends a signal (STOP, CONT, KILL) through {@link Signals}: no fork, so it lands at once. */
    public void signal(String name) throws IOException, InterruptedException {
        Signals.send(name, process.pid());
    }

    /**
     * Whether the worker wrote (or failed, or - a reader, a permit holder - ended its section without a
     * write) for {@code read}'s lock after it was read: after a
     * SIGSTOP, whether the stop came too late to catch it inside its critical section. Waits a
     * moment first, for output the worker wrote before it stopped to be parsed.
     */
    public boolean leftCriticalSection(WorkerEvent read) throws InterruptedException {
        Thread.sleep(100);
        return events.stream().anyMatch(e -> e.at() >= read.at() && e.key().equals(read.key())
                && (e.type().equals("WRITE_OK") || e.type().equals("WRITE_REJECTED") || e.type().equals("ERROR")
                || e.type().equals("READ_AGAIN") || e.type().equals("OUTSIDE")));
    }

    /** Waits for the worker to end on its own (its run time is up), then for its output. */
    public boolean awaitExit(long millis) throws InterruptedException {
        boolean exited = process.waitFor(millis, TimeUnit.MILLISECONDS);
        reader.join(2000);
        return exited;
    }

    /** Makes sure the process is gone: continue it if stopped, then kill it. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                signal("CONT");
            } catch (IOException | InterruptedException e) {
                // Best effort: destroyForcibly below still ends it.
            }
            process.destroyForcibly();
        }
        proxies.forEach(ChaosProxy::close);
        try {
            process.waitFor(10, TimeUnit.SECONDS);
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Cleanup.forget(this);
    }
}
