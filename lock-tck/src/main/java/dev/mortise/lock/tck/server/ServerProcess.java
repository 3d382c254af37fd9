package dev.mortise.lock.tck.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real server process for tests: started on a free loopback port with a temp directory
 * of its own, and stoppable, killable (SIGKILL), pausable (SIGSTOP/SIGCONT) and
 * restartable on the same port and directory, so fault tests can do to it what
 * production does. Output goes to {@code server.log} in its directory; a failed start
 * reports the end of that log.
 *
 * <p>Not thread-safe: one test thread drives one server.
 */
public abstract class ServerProcess implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    protected final String name;
    protected final Path dir;
    protected final int port;
    private Process process;

    protected ServerProcess(String name, int port) {
        this.name = name;
        this.port = port;
        try {
            this.dir = Files.createTempDirectory("mortise-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp directory for " + name, e);
        }
    }

    /** The command that runs the server in the foreground. */
    protected abstract List<String> command();

    /** Whether the server answers requests (default: the port accepts connections). */
    protected boolean isReady() {
        return FreePorts.accepts(port);
    }

    /** One-time preparation before the first start (initdb, install-db). */
    protected void prepare() throws IOException, InterruptedException {
    }

    public int port() {
        return port;
    }

    public Path dir() {
        return dir;
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** The server process id, for signals from outside. */
    public long pid() {
        if (process == null) {
            throw new IllegalStateException(name + " is not started");
        }
        return process.pid();
    }

    private boolean prepared;
    private final java.util.Map<String, String> environment = new java.util.LinkedHashMap<>();

    /**
     * Adds variables to the server process's environment from its next start on (for example
     * {@code LD_PRELOAD} and the settings of a clock library, so the server runs on a wall clock a
     * test moves). They are set by {@code env} right before the server itself, after any
     * {@code setpriv ... --} that drops to the server's user: a preload library loaded by the
     * root-owned {@code setpriv} would create its shared memory as root, which the server then may
     * not open (libfaketime: "sem_open failed ... Permission denied"). Not for the one-time
     * {@link #prepare()} commands.
     */
    public ServerProcess environment(java.util.Map<String, String> variables) {
        environment.putAll(variables);
        return this;
    }

    private final List<String> commandPrefix = new ArrayList<>();

    /**
     * Runs the server under a wrapper program from its next start on: {@code prefix} goes in
     * front of the whole command (and of the {@code env} of {@link #environment}), so the
     * wrapper starts the server as its child - for example a tracer that moves the server's wall
     * clock. The wrapper must pass on the signals it gets and exit when the server exits: from
     * then on {@link #pid()} and the signals of {@link #stop()} and {@link #pause()} reach the
     * wrapper first ({@link #pause()} and {@link #kill()} also signal its descendants, the server).
     * Not for the one-time {@link #prepare()} commands.
     */
    public ServerProcess commandPrefix(List<String> prefix) {
        commandPrefix.clear();
        commandPrefix.addAll(prefix);
        return this;
    }

    /** Starts the server and waits until it is ready. */
    public ServerProcess start() {
        launch();
        return awaitReady();
    }

    /** Starts the process without waiting (members of a cluster start together, then wait). */
    public ServerProcess launch() {
        if (isRunning()) {
            return this;
        }
        try {
            if (!prepared) {
                prepare();
                prepared = true;
            }
            List<String> command = new ArrayList<>(commandPrefix);
            command.addAll(withEnvironment(command()));
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile()));
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("Could not start " + name + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while preparing " + name, e);
        }
        return this;
    }

    /** {@code command} with {@code env K=V ...} in front of the server's own program. */
    private List<String> withEnvironment(List<String> command) {
        if (environment.isEmpty()) {
            return command;
        }
        List<String> result = new java.util.ArrayList<>(command);
        List<String> env = new java.util.ArrayList<>(List.of("env"));
        environment.forEach((k, v) -> env.add(k + "=" + v));
        int at = result.get(0).endsWith("setpriv") ? result.indexOf("--") + 1 : 0;
        result.addAll(at, env);
        return result;
    }

    /** Waits until a launched server is ready, failing with the end of its log. */
    public ServerProcess awaitReady() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!isReady()) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with code " + process.exitValue() + " on port " + port
                        + ". End of " + dir.resolve("server.log") + ":\n" + logTail());
            }
            if (System.nanoTime() - deadline > 0) {
                kill();
                throw new IllegalStateException(name + " was not ready within " + START_TIMEOUT + " on port " + port
                        + ". End of its log:\n" + logTail());
            }
            sleep(50);
        }
        return this;
    }

    /** Stops the server gracefully (with {@link #stopSignal()}), waiting for it to exit. */
    public void stop() {
        if (process == null || !process.isAlive()) {
            return;
        }
        resume();
        signal(stopSignal());
        waitForExit(Duration.ofSeconds(30));
    }

    /** The signal that shuts the server down without waiting for clients (default TERM). */
    protected String stopSignal() {
        return "TERM";
    }

    /** Kills the server at once (SIGKILL), as a crash would. */
    public void kill() {
        if (process == null || !process.isAlive()) {
            return;
        }
        List<ProcessHandle> children = process.descendants().toList();
        process.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        waitForExit(Duration.ofSeconds(30));
    }

    /**
     * Freezes the server and its child processes (SIGSTOP), as a long GC pause or a hung host
     * would, and returns once every thread of the server has stopped. The kernel wakes one thread
     * to take a SIGSTOP and stops the others only when that one runs: on two busy cores the rest
     * of a multi-threaded server (etcd) went on answering for a while after {@code kill} returned
     * (a CI run saw a release answered "after" the pause).
     */
    public void pause() {
        if (!isRunning()) {
            return;
        }
        signal("STOP");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!allThreadsStopped(process.pid())) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(name + " did not stop within 10 s of SIGSTOP");
            }
            sleep(1);
        }
    }

    /** Whether every thread of {@code pid} is in the stopped state ('T' or 't' in /proc/pid/task/tid/stat). */
    private static boolean allThreadsStopped(long pid) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (Stream<Path> threads = Files.list(tasks)) {
            return threads.allMatch(thread -> {
                try {
                    String stat = Files.readString(thread.resolve("stat"));
                    char state = stat.charAt(stat.lastIndexOf(')') + 2);
                    return state == 'T' || state == 't';
                } catch (IOException gone) {
                    return true; // the thread ended: it answers nothing
                }
            });
        } catch (IOException e) {
            return true; // no /proc (not Linux) or the process is gone: nothing more to wait for
        }
    }

    /** Thaws a paused server (SIGCONT). */
    public void resume() {
        signal("CONT");
    }

    /** Stops and starts again on the same port and directory. */
    public ServerProcess restart() {
        stop();
        return start();
    }

    private void signal(String signal) {
        if (!isRunning()) {
            return;
        }
        // Children come and go (a PostgreSQL backend exits): signalling them is best-effort.
        if (signal.equals("STOP") || signal.equals("CONT")) {
            List<String> children = new ArrayList<>(List.of("kill", "-" + signal));
            process.descendants().forEach(p -> children.add(Long.toString(p.pid())));
            if (children.size() > 2) {
                runKill(children, false);
            }
        }
        runKill(List.of("kill", "-" + signal, Long.toString(process.pid())), true);
    }

    private void runKill(List<String> command, boolean mustSucceed) {
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            boolean done = kill.waitFor(10, TimeUnit.SECONDS);
            if (mustSucceed && (!done || kill.exitValue() != 0) && isRunning()) {
                throw new IllegalStateException(String.join(" ", command) + " failed for " + name + ": " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void waitForExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (FreePorts.accepts(port) && System.nanoTime() - deadline < 0) {
            sleep(20);
        }
    }

    /** The last lines of the server's log, for failure messages. */
    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("server.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Whether {@code command} exits with 0 (readiness probes such as pg_isready). */
    protected static boolean succeeds(List<String> command) {
        try {
            Process probe = new ProcessBuilder(command).redirectErrorStream(true).start();
            probe.getInputStream().readAllBytes();
            return probe.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs a helper command to completion (initdb, install-db), failing with its output. */
    protected void run(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Process helper = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = helper.getInputStream().readAllBytes();
        if (!helper.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || helper.exitValue() != 0) {
            helper.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed for " + name + ":\n"
                    + new String(out, StandardCharsets.UTF_8));
        }
    }

    protected static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Kills the server and deletes its directory. */
    @Override
    public void close() {
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }

    @Override
    public String toString() {
        return name + "@127.0.0.1:" + port;
    }
}
