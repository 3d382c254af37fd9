package dev.mortise.lock.tck;

import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deadlocks between separate JVMs on the backend's real server: a two-process and a three-process
 * cycle, and a cycle of readers and writers, each end with exactly one {@code LockDeadlockException}
 * while the survivors get their keys. Each owner is a {@link DeadlockParty} process; a backend's
 * module extends this (named {@code *CrossProcessDeadlockTest}) and names a factory its processes build
 * their backend with, and the system properties that point it at the test's server.
 *
 * <p>The time from {@code GO} to the victim's exception is printed (threshold + about one period
 * expected); it is measured by the benchmark, never asserted here. Tagged {@code deadlock}.
 */
@Tag("deadlock")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public abstract class CrossProcessDeadlockContract {

    private static final long THRESHOLD_MS = 200;

    private final List<Process> processes = new ArrayList<>();

    /** The factory every process builds its backend with. */
    protected abstract Class<? extends Supplier<LockBackend>> factory();

    /** System properties (without {@code -D}) that point the factory at this test's server. */
    protected abstract Map<String, String> factoryProperties();

    @AfterEach
    void stopProcesses() {
        processes.forEach(Process::destroyForcibly);
    }

    /** One owner process and its lines. */
    private final class Owner {
        final Process process;
        final BufferedReader out;
        final Writer in;

        Owner(String held, String heldMode, String wanted, String wantedMode) throws IOException {
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                    "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path")));
            factoryProperties().forEach((k, v) -> command.add("-D" + k + "=" + v));
            command.addAll(List.of(DeadlockParty.class.getName(), factory().getName(), held, heldMode, wanted,
                    wantedMode, Long.toString(THRESHOLD_MS)));
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            processes.add(process);
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        }

        String line() throws IOException {
            String line = out.readLine();
            return line == null ? "EOF (exit " + (process.isAlive() ? "?" : process.exitValue()) + ")" : line;
        }

        void go() throws IOException {
            in.write("GO\n");
            in.flush();
        }
    }

    private static String key(String name) {
        return "tck:cross-process:" + name + ":" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Starts one owner per step (held key, its mode, wanted key, its mode), lets all wait, checks the outcome. */
    private void cycle(List<String[]> steps) throws Exception {
        List<Owner> owners = new ArrayList<>();
        for (String[] step : steps) {
            owners.add(new Owner(step[0], step[1], step[2], step[3]));
        }
        for (Owner owner : owners) {
            assertThat(owner.line()).startsWith("HELD ");
        }
        for (Owner owner : owners) {
            owner.go();
            Thread.sleep(60); // a distinct start per wait: the last one is the youngest
        }
        List<String> results = new ArrayList<>();
        for (Owner owner : owners) {
            results.add(owner.line());
        }
        List<String> deadlocks = results.stream().filter(r -> r.startsWith("DEADLOCK ")).toList();
        assertThat(deadlocks).as("exactly one victim among %s", results).hasSize(1);
        assertThat(deadlocks.get(0)).startsWith("DEADLOCK " + steps.size() + " ");
        assertThat(results.stream().filter(r -> r.startsWith("GRANTED ")).count()).as("survivors in %s", results)
                .isEqualTo(steps.size() - 1);
        assertThat(results.get(results.size() - 1)).as("the youngest wait is the victim").startsWith("DEADLOCK ");
        System.out.println(getClass().getSimpleName() + ": " + steps.size() + "-process cycle broken, victim waited "
                + deadlocks.get(0).split(" ")[2] + " ms (threshold " + THRESHOLD_MS + " ms)");
        for (Owner owner : owners) {
            assertThat(owner.line()).isEqualTo("DONE");
            assertThat(owner.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aTwoProcessCycleEndsWithOneDeadlock() throws Exception {
        String a = key("a");
        String b = key("b");
        cycle(List.of(new String[] {a, "EXCLUSIVE", b, "EXCLUSIVE"}, new String[] {b, "EXCLUSIVE", a, "EXCLUSIVE"}));
    }

    @Test
    void aThreeProcessCycleEndsWithOneDeadlock() throws Exception {
        String a = key("a");
        String b = key("b");
        String c = key("c");
        cycle(List.of(new String[] {a, "EXCLUSIVE", b, "EXCLUSIVE"}, new String[] {b, "EXCLUSIVE", c, "EXCLUSIVE"},
                new String[] {c, "EXCLUSIVE", a, "EXCLUSIVE"}));
    }

    @Test
    void aCycleOfReadersAndAWriterEndsWithOneDeadlock() throws Exception {
        String a = key("a");
        String b = key("b");
        // each reads one key and waits to write the other: a writer waits for every reader
        cycle(List.of(new String[] {a, "SHARED", b, "EXCLUSIVE"}, new String[] {b, "SHARED", a, "EXCLUSIVE"}));
    }
}
