package dev.mortise.lock.bench.run;

import dev.mortise.lock.bench.common.JavaProcess;
import dev.mortise.lock.spi.LockBackend;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One client process of {@link DeadlocksRun}, spoken to by lines: a {@link DeadlocksWorker} JVM, or
 * (the in-process backend, which no other JVM can reach) the same command loop on a thread of this
 * JVM over piped streams. Used by the run's thread only.
 */
final class DeadlockParty implements AutoCloseable {

    private final OutputStream commands;
    private final BufferedReader answers;
    private final Process process;
    private final Thread thread;

    private DeadlockParty(OutputStream commands, BufferedReader answers, Process process, Thread thread) {
        this.commands = commands;
        this.answers = answers;
        this.process = process;
        this.thread = thread;
    }

    /** A {@link DeadlocksWorker} JVM on {@code group}'s server at {@code endpoint}, ready for commands. */
    static DeadlockParty child(String group, String endpoint, boolean detection) throws IOException {
        Process child = JavaProcess.start(DeadlocksWorker.class, List.of("-Xmx256m", "-XX:+UseSerialGC"),
                List.of(group, endpoint, detection ? "on" : "off"));
        DeadlockParty party = new DeadlockParty(child.getOutputStream(), new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)), child, null);
        party.expect("READY");
        return party;
    }

    /** The command loop on a thread of this JVM, with a client of its own on {@code backend}. */
    static DeadlockParty inProcess(LockBackend backend, boolean detection) throws IOException {
        PipedOutputStream commands = new PipedOutputStream();
        PipedInputStream commandsIn = new PipedInputStream(commands);
        PipedOutputStream answersOut = new PipedOutputStream();
        PipedInputStream answers = new PipedInputStream(answersOut, 1 << 20);
        DeadlocksWorker worker = new DeadlocksWorker(backend, detection);
        Thread thread = new Thread(() -> {
            try (PrintStream out = new PrintStream(answersOut, true, StandardCharsets.UTF_8)) {
                worker.serve(new BufferedReader(new InputStreamReader(commandsIn, StandardCharsets.UTF_8)), out);
            } catch (Exception e) {
                System.err.println("deadlocks worker thread failed: " + e);
            } finally {
                worker.close();
            }
        }, "deadlocks-party");
        thread.setDaemon(true);
        thread.start();
        return new DeadlockParty(commands, new BufferedReader(new InputStreamReader(answers,
                StandardCharsets.UTF_8)), null, thread);
    }

    void send(String command) throws IOException {
        commands.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        commands.flush();
    }

    /**
     * The next line that starts with one of {@code words}, split at spaces (the word first); other
     * output is skipped.
     */
    String[] expect(String... words) throws IOException {
        for (String line = answers.readLine(); line != null; line = answers.readLine()) {
            for (String word : words) {
                if (line.startsWith(word)) {
                    return line.split(" ");
                }
            }
        }
        throw new IllegalStateException("the deadlocks worker ended before it answered " + String.join("|", words));
    }

    @Override
    public void close() throws Exception {
        try {
            send("QUIT");
            commands.close();
        } catch (IOException e) {
            // already gone
        }
        if (process != null && !process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        if (thread != null) {
            thread.join(30_000);
        }
    }
}
