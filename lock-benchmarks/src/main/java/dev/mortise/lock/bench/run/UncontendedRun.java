package dev.mortise.lock.bench.run;

import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.bench.common.UncontendedResult;
import dev.mortise.lock.bench.subject.Held;
import dev.mortise.lock.bench.subject.LockSubject;
import dev.mortise.lock.bench.subject.SubjectCatalog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Uncontended acquire+release on distinct keys: every thread cycles through keys of its own,
 * so no two threads ever want the same lock. All subjects of a group are open at once and
 * measured in turn, in rounds, so slow drift of a shared machine spreads over all of them.
 */
public final class UncontendedRun {

    private static final int KEYS_PER_THREAD = 1000;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Timing timing;
    private final Notes notes;
    private final java.util.function.Predicate<String> include;

    /** @param include which subject ids to run (all: {@code id -> true}) */
    public UncontendedRun(Timing timing, Notes notes, java.util.function.Predicate<String> include) {
        this.timing = timing;
        this.notes = notes;
        this.include = include;
    }

    public List<UncontendedResult> run(String group, Endpoints endpoints, int... threadCounts) {
        Map<String, LockSubject> subjects = new LinkedHashMap<>();
        List<UncontendedResult> results = new ArrayList<>();
        try {
            for (String id : SubjectCatalog.ids(group)) {
                if (!include.test(id)) {
                    continue;
                }
                try {
                    subjects.put(id, SubjectCatalog.create(id, endpoints));
                } catch (Exception | LinkageError e) {
                    notes.finding("uncontended " + id + ": could not be set up: " + e);
                }
            }
            for (int threads : threadCounts) {
                Map<String, Tally> tallies = new LinkedHashMap<>();
                // Every library is warmed up before any is measured (the first one measured in a
                // fresh JVM would otherwise pay for the JIT), and each round starts with another
                // library, so no one is always measured first.
                List<LockSubject> order = new ArrayList<>(subjects.values());
                for (LockSubject subject : order) {
                    Tally tally = tallies.computeIfAbsent(subject.id(), k -> new Tally());
                    try {
                        measure(subject, threads, timing.warmup(), new Tally());
                    } catch (Exception e) {
                        tally.failed = true;
                        notes.finding("uncontended " + subject.id() + " at " + threads + " thread(s) failed in warm-up: "
                                + e);
                    }
                }
                for (int round = 0; round < timing.rounds(); round++) {
                    for (int i = 0; i < order.size(); i++) {
                        LockSubject subject = order.get((i + round) % order.size());
                        Tally tally = tallies.get(subject.id());
                        if (tally.failed) {
                            continue;
                        }
                        try {
                            measure(subject, threads, timing.measure().dividedBy(timing.rounds()), tally);
                        } catch (Exception e) {
                            tally.failed = true;
                            notes.finding("uncontended " + subject.id() + " at " + threads + " thread(s) failed: " + e);
                        }
                    }
                }
                for (LockSubject subject : subjects.values()) {
                    Tally tally = tallies.get(subject.id());
                    if (tally == null || tally.failed || tally.latencies.size() == 0) {
                        continue;
                    }
                    UncontendedResult result = new UncontendedResult(group, subject.id(), subject.label(),
                            subject.role(), threads, tally.latencies.size(), tally.seconds,
                            tally.latencies.percentileMicros(50), tally.latencies.percentileMicros(99),
                            tally.latencies.size() / tally.seconds,
                            tally.allocated < 0 ? Double.NaN : (double) tally.allocated / tally.latencies.size());
                    results.add(result);
                    notes.progress(String.format(
                            "  %-28s %d thr  p50 %8.1f µs  p99 %8.1f µs  %9.0f ops/s  %7.0f B/cycle  %6.1f CPU µs/cycle",
                            subject.id(), threads, result.p50(), result.p99(), result.opsPerSecond(),
                            result.allocatedBytesPerCycle(), tally.cpuNanos / 1000.0 / tally.latencies.size()));
                }
            }
        } finally {
            for (LockSubject subject : subjects.values()) {
                try {
                    subject.close();
                } catch (Exception e) {
                    notes.progress("closing " + subject.id() + " failed: " + e);
                }
            }
        }
        return results;
    }

    private static final class Tally {
        final Latencies latencies = new Latencies();
        double seconds;
        /** Whole-JVM bytes allocated during the measured windows; negative if the JVM cannot tell. */
        long allocated;
        /** This JVM's CPU time during the measured windows (progress line only). */
        long cpuNanos;
        boolean failed;
    }

    private void measure(LockSubject subject, int threads, Duration duration, Tally tally) throws Exception {
        String tag = subject.id().replace('/', '.');
        CountDownLatch start = new CountDownLatch(1);
        Latencies[] perThread = new Latencies[threads];
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        long[] startedAt = new long[1];
        for (int t = 0; t < threads; t++) {
            int index = t;
            perThread[t] = new Latencies();
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    long deadline = startedAt[0] + duration.toNanos();
                    String prefix = tag + ":" + threads + ":t" + index + ":";
                    for (int i = 0; System.nanoTime() - deadline < 0 && failure.get() == null; i++) {
                        String key = prefix + (i % KEYS_PER_THREAD);
                        long begin = System.nanoTime();
                        Held held = subject.acquire(key, WAIT);
                        if (held == null) {
                            throw new IllegalStateException("uncontended lock '" + key + "' was not granted");
                        }
                        held.release();
                        perThread[index].add(System.nanoTime() - begin);
                    }
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-" + t);
            workers.add(worker);
            worker.start();
        }
        long allocatedBefore = Allocation.totalBytes();
        long cpuBefore = Allocation.processCpuNanos();
        startedAt[0] = System.nanoTime();
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsed = System.nanoTime() - startedAt[0];
        long allocatedAfter = Allocation.totalBytes();
        long cpuAfter = Allocation.processCpuNanos();
        if (failure.get() != null) {
            throw failure.get();
        }
        for (Latencies latencies : perThread) {
            tally.latencies.addAll(latencies);
        }
        tally.seconds += elapsed / 1e9;
        tally.cpuNanos += cpuAfter - cpuBefore;
        // Includes the workers' own per-cycle garbage (the key string, a Latencies sample grown
        // now and then): the same for every subject, so rows compare.
        tally.allocated = allocatedBefore < 0 || tally.allocated < 0 ? -1
                : tally.allocated + (allocatedAfter - allocatedBefore);
    }
}
