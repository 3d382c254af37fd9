package dev.mortise.lock.bench.run;

import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.bench.subject.Held;
import dev.mortise.lock.bench.subject.LockSubject;
import dev.mortise.lock.bench.subject.SubjectCatalog;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One JVM of the contended-handoff scenario. Builds the subject, warms it up (alternating a
 * key the other JVM also wants and keys of its own), prints {@code READY}, waits for {@code GO} on standard input, then lets its threads
 * loop on the shared key (acquire, release at once, pause 1 ms) for the given time and writes
 * one line per grant: jvm, thread, requested, granted and releasing times in
 * {@link System#nanoTime()} (CLOCK_MONOTONIC on Linux: one clock for every JVM of the machine).
 *
 * <pre>HandoffWorker subjectId endpoints threads warmupMillis runMillis key outFile jvmIndex</pre>
 */
public final class HandoffWorker {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final long PAUSE_NANOS = 1_000_000;

    private HandoffWorker() {
    }

    public static void main(String[] args) throws Exception {
        String id = args[0];
        Endpoints endpoints = Endpoints.decode(args[1]);
        int threads = Integer.parseInt(args[2]);
        long warmupMillis = Long.parseLong(args[3]);
        long runMillis = Long.parseLong(args[4]);
        String key = args[5];
        Path outFile = Path.of(args[6]);
        int jvm = Integer.parseInt(args[7]);
        try (LockSubject subject = SubjectCatalog.create(id, endpoints)) {
            runThreads(threads, t -> {
                long end = System.nanoTime() + warmupMillis * 1_000_000;
                for (int i = 0; System.nanoTime() - end < 0; i++) {
                    // Every other cycle contends with the other JVM (warming up both JVMs at once) on
                    // a shared key, so the wait-and-wake path is compiled before it is measured.
                    boolean shared = i % 2 == 1;
                    Held held = subject.acquire(shared ? key + ":warm" : "warm:" + jvm + ":" + t + ":" + (i % 100), WAIT);
                    if (held != null) {
                        held.release();
                        if (shared) {
                            LockSupport.parkNanos(PAUSE_NANOS);
                        }
                    }
                }
                return List.of();
            });
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (!"GO".equals(in.readLine())) {
                return;
            }
            long deadline = System.nanoTime() + runMillis * 1_000_000;
            List<String> lines = runThreads(threads, t -> {
                List<String> records = new ArrayList<>();
                while (System.nanoTime() - deadline < 0) {
                    long requested = System.nanoTime();
                    Held held = subject.acquire(key, WAIT);
                    if (held == null) {
                        continue;
                    }
                    long granted = System.nanoTime();
                    long releasing = System.nanoTime();
                    held.release();
                    records.add(jvm + " " + t + " " + requested + " " + granted + " " + releasing);
                    LockSupport.parkNanos(PAUSE_NANOS);
                }
                return records;
            });
            try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(outFile))) {
                lines.forEach(out::println);
            }
            System.out.println("DONE");
            System.out.flush();
        }
    }

    /** A thread's loop: its index in, its records out. */
    private interface Loop {
        List<String> run(int thread) throws Exception;
    }

    private static List<String> runThreads(int threads, Loop loop) throws Exception {
        List<List<String>> results = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        Exception[] failure = new Exception[1];
        for (int t = 0; t < threads; t++) {
            int index = t;
            List<String> mine = new ArrayList<>();
            results.add(mine);
            Thread worker = new Thread(() -> {
                try {
                    mine.addAll(loop.run(index));
                } catch (Exception e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                }
            }, "handoff-" + t);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure[0] != null) {
            throw failure[0];
        }
        List<String> all = new ArrayList<>();
        results.forEach(all::addAll);
        return all;
    }
}
