package dev.mortise.lock.bench.run;

import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.bench.common.JavaProcess;
import dev.mortise.lock.bench.common.HandoffResult;
import dev.mortise.lock.bench.subject.LockSubject;
import dev.mortise.lock.bench.subject.SubjectCatalog;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Contended handoff on one key: starts two {@link HandoffWorker} JVMs per subject with half
 * the threads each, releases them at the same moment, and computes from their grant records
 * the time from each release to the grant of an owner that was already waiting.
 */
public final class HandoffRun {

    private final Timing timing;
    private final Notes notes;
    private final java.util.function.Predicate<String> include;
    private Runnable beforeEachSubject = () -> { };

    /** A check to run before each subject (that the server is still up). */
    public HandoffRun beforeEachSubject(Runnable check) {
        this.beforeEachSubject = check;
        return this;
    }

    /** @param include which subject ids to run (all: {@code id -> true}) */
    public HandoffRun(Timing timing, Notes notes, java.util.function.Predicate<String> include) {
        this.timing = timing;
        this.notes = notes;
        this.include = include;
    }

    /** One grant as a worker recorded it. */
    record Grant(int jvm, int thread, long requested, long granted, long releasing) {
        static Grant parse(String line) {
            String[] f = line.trim().split(" ");
            return new Grant(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Long.parseLong(f[2]),
                    Long.parseLong(f[3]), Long.parseLong(f[4]));
        }
    }

    public List<HandoffResult> run(String group, Endpoints endpoints, int... threadCounts) {
        List<HandoffResult> results = new ArrayList<>();
        for (int threads : threadCounts) {
            for (String id : SubjectCatalog.ids(group)) {
                if (!include.test(id)) {
                    continue;
                }
                beforeEachSubject.run();
                String label;
                boolean canWait;
                dev.mortise.lock.bench.common.Role role;
                try (LockSubject probe = SubjectCatalog.create(id, endpoints)) {
                    label = probe.label();
                    canWait = probe.canWait();
                    role = probe.role();
                } catch (Exception e) {
                    notes.finding("handoff " + id + ": could not be set up: " + e);
                    continue;
                }
                if (!canWait) {
                    continue;
                }
                try {
                    List<Grant> grants = runWorkers(id, endpoints, threads);
                    HandoffResult result = analyse(group, id, label, role, threads, grants);
                    results.add(result);
                    notes.progress(String.format("  %-28s %d thr  grants %5d/%-5d  handoffs %6d  p50 %8.1f µs  "
                                    + "cross %6d  cross p50 %8.1f µs  p99 %8.1f µs", id, threads, result.grantsJvm0(),
                            result.grantsJvm1(), result.handoffs(), result.p50(), result.crossHandoffs(),
                            result.crossP50(), result.crossP99()));
                } catch (Exception e) {
                    notes.finding("handoff " + id + " at " + threads + " threads failed: " + e);
                }
            }
        }
        return results;
    }

    private List<Grant> runWorkers(String id, Endpoints endpoints, int threads) throws Exception {
        String key = "handoff:" + id.replace('/', '.') + ":" + threads + ":" + System.nanoTime();
        List<Process> processes = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        // A worker that hangs (a lock never granted, a server gone) must not stall the whole run.
        long limitMillis = timing.warmup().toMillis() + timing.handoff().toMillis() + 90_000;
        Thread reaper = new Thread(() -> {
            try {
                Thread.sleep(limitMillis);
                notes.finding("handoff " + id + " at " + threads + " threads: workers still running after "
                        + limitMillis / 1000 + " s; killed");
                processes.forEach(Process::destroyForcibly);
            } catch (InterruptedException finished) {
                // the workers finished in time
            }
        }, "handoff-reaper");
        reaper.setDaemon(true);
        reaper.start();
        try {
            for (int jvm = 0; jvm < 2; jvm++) {
                Path file = Files.createTempFile("mortise-handoff-", ".txt");
                files.add(file);
                processes.add(JavaProcess.start(HandoffWorker.class, List.of("-Xmx256m", "-XX:+UseSerialGC"),
                        List.of(id, endpoints.encode(), Integer.toString(threads / 2),
                                Long.toString(timing.warmup().toMillis()), Long.toString(timing.handoff().toMillis()),
                                key, file.toString(), Integer.toString(jvm))));
            }
            List<BufferedReader> outputs = new ArrayList<>();
            for (Process process : processes) {
                BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8));
                outputs.add(out);
                expect(out, "READY", process);
            }
            for (Process process : processes) {
                OutputStream in = process.getOutputStream();
                in.write("GO\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
            }
            for (int i = 0; i < processes.size(); i++) {
                expect(outputs.get(i), "DONE", processes.get(i));
                processes.get(i).getOutputStream().close();
                processes.get(i).waitFor(30, TimeUnit.SECONDS);
            }
            List<Grant> grants = new ArrayList<>();
            for (Path file : files) {
                for (String line : Files.readAllLines(file)) {
                    if (!line.isBlank()) {
                        grants.add(Grant.parse(line));
                    }
                }
            }
            return grants;
        } finally {
            reaper.interrupt();
            for (Process process : processes) {
                if (process.isAlive()) {
                    process.destroyForcibly();
                }
            }
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static void expect(BufferedReader out, String word, Process process) throws Exception {
        String line;
        while ((line = out.readLine()) != null) {
            if (line.equals(word)) {
                return;
            }
        }
        process.waitFor(5, TimeUnit.SECONDS);
        throw new IllegalStateException("handoff worker ended before " + word + " (exit "
                + (process.isAlive() ? "still running" : process.exitValue()) + ")");
    }

    HandoffResult analyse(String group, String id, String label, dev.mortise.lock.bench.common.Role role,
                          int threads, List<Grant> grants) {
        List<Grant> ordered = new ArrayList<>(grants);
        ordered.sort(Comparator.comparingLong(Grant::granted));
        Latencies all = new Latencies();
        Latencies cross = new Latencies();
        int overlaps = 0;
        for (int i = 1; i < ordered.size(); i++) {
            Grant previous = ordered.get(i - 1);
            Grant next = ordered.get(i);
            if (next.granted() < previous.releasing()) {
                overlaps++; // two holders at once: a mutual-exclusion failure, reported below
                continue;
            }
            if (next.requested() >= previous.releasing()) {
                continue; // nobody was waiting: the lock was simply free
            }
            long handoff = next.granted() - previous.releasing();
            all.add(handoff);
            if (next.jvm() != previous.jvm()) {
                cross.add(handoff);
            }
        }
        if (overlaps > 0) {
            notes.finding("handoff " + id + " at " + threads + " threads: " + overlaps
                    + " grant(s) began before the previous holder's release (mutual exclusion violated?)");
        }
        long jvm0 = ordered.stream().filter(g -> g.jvm() == 0).count();
        return new HandoffResult(group, id, label, role, threads, ordered.size(), jvm0, ordered.size() - jvm0,
                all.size(),
                all.percentileMicros(50), all.percentileMicros(99), cross.size(), cross.percentileMicros(50),
                cross.percentileMicros(99));
    }
}
