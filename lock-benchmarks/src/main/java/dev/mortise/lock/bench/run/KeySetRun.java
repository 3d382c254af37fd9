package dev.mortise.lock.bench.run;

import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.bench.common.KeySetResult;
import dev.mortise.lock.bench.subject.Held;
import dev.mortise.lock.bench.subject.LockSubject;
import dev.mortise.lock.bench.subject.SubjectCatalog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * Contention over a small shared set of keys, for the locks of issue 16:
 * <ul>
 *   <li>{@link #readWrite}: {@value #RW_THREADS} threads, {@value #RW_KEYS} keys; each op picks a
 *       key at random and takes it shared with probability {@value #READ_PERCENT} % (a read) or
 *       exclusive otherwise (a write);</li>
 *   <li>{@link #multiKey}: {@value #MULTI_THREADS} threads, {@value #MULTI_KEYS} keys; each op takes
 *       {@value #KEYS_PER_OP} distinct random keys at once (sorted, for every library).</li>
 * </ul>
 * Each op holds for a short critical section ({@code parkNanos(100 µs)}: the same for everyone; a
 * parked thread leaves the CPU to the others on this shared machine) and releases. The latency of
 * an op is its acquire (with the wait) plus its release, without the critical section.
 * <p>
 * Every grant is checked against the others in this JVM (one counter per key: a write must find
 * the key free, a read must find no write): a violation is reported as a finding, so a figure can
 * never come from a lock that did not exclude. All subjects of a group are open at once, warmed up
 * in turn, then measured in rounds that each start with another subject, as in {@link UncontendedRun}.
 */
public final class KeySetRun {

    static final int RW_THREADS = 8;
    static final int RW_KEYS = 4;
    static final int READ_PERCENT = 90;
    static final int MULTI_THREADS = 4;
    static final int MULTI_KEYS = 16;
    static final int KEYS_PER_OP = 3;
    private static final long CRITICAL_SECTION_NANOS = 100_000;
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Added to a key's counter by a writer: more than any number of readers. */
    private static final int WRITER = 1 << 20;

    private final Timing timing;
    private final Notes notes;
    private final Predicate<String> include;
    private final String scenario;

    private KeySetRun(String scenario, Timing timing, Notes notes, Predicate<String> include) {
        this.scenario = scenario;
        this.timing = timing;
        this.notes = notes;
        this.include = include;
    }

    /** @param include which subject ids to run (all: {@code id -> true}) */
    public static KeySetRun readWrite(Timing timing, Notes notes, Predicate<String> include) {
        return new KeySetRun(KeySetResult.READ_WRITE, timing, notes, include);
    }

    /** @param include which subject ids to run (all: {@code id -> true}) */
    public static KeySetRun multiKey(Timing timing, Notes notes, Predicate<String> include) {
        return new KeySetRun(KeySetResult.MULTI_KEY, timing, notes, include);
    }

    private boolean readWrite() {
        return scenario.equals(KeySetResult.READ_WRITE);
    }

    public List<KeySetResult> run(String group, Endpoints endpoints) {
        Map<String, LockSubject> subjects = new LinkedHashMap<>();
        List<KeySetResult> results = new ArrayList<>();
        try {
            setUp(group, endpoints, subjects);
            Map<String, Tally> tallies = new LinkedHashMap<>();
            List<LockSubject> order = new ArrayList<>(subjects.values());
            for (LockSubject subject : order) {
                Tally tally = tallies.computeIfAbsent(subject.id(), k -> new Tally());
                try {
                    measure(subject, "w", timing.warmup(), new Tally());
                } catch (Exception e) {
                    tally.failed = true;
                    notes.finding(scenario + " " + subject.id() + " failed in warm-up: " + e);
                }
            }
            for (int round = 0; round < timing.rounds(); round++) {
                measureRound(group, endpoints, order, round, tallies);
            }
            for (LockSubject subject : subjects.values()) {
                Tally t = tallies.get(subject.id());
                if (t.failed || t.reads.size() + t.writes.size() == 0) {
                    continue;
                }
                results.add(result(group, subject, t));
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

    /** Creates the included subjects of {@code group} into {@code subjects}; one that cannot be set up is a finding. */
    private void setUp(String group, Endpoints endpoints, Map<String, LockSubject> subjects) {
        List<String> ids = readWrite() ? SubjectCatalog.readWriteIds(group) : SubjectCatalog.multiKeyIds(group);
        for (String id : ids) {
            if (!include.test(id)) {
                continue;
            }
            try {
                subjects.put(id, SubjectCatalog.create(id, endpoints));
            } catch (Exception | LinkageError e) {
                notes.finding(scenario + " " + id + ": could not be set up: " + e);
            }
        }
    }

    /** One measured round: every subject not yet failed in turn, starting {@code round} places further along. */
    private void measureRound(String group, Endpoints endpoints, List<LockSubject> order, int round,
                              Map<String, Tally> tallies) {
        for (int i = 0; i < order.size(); i++) {
            LockSubject subject = order.get((i + round) % order.size());
            Tally tally = tallies.get(subject.id());
            if (tally.failed) {
                continue;
            }
            try (ServerRequests counter = counter(group, endpoints)) {
                measure(subject, "m", timing.keySetMeasure().dividedBy(timing.rounds()), tally);
                if (counter != null) {
                    tally.requests += counter.stop();
                } else {
                    tally.requests = -1;
                }
            } catch (Exception e) {
                tally.failed = true;
                notes.finding(scenario + " " + subject.id() + " failed: " + e);
            }
        }
    }

    /** The subject's result from its tally, its violations and timeouts as findings, its line as progress. */
    private KeySetResult result(String group, LockSubject subject, Tally t) {
        if (t.violations.get() > 0) {
            notes.finding(scenario + " " + subject.id() + ": " + t.violations.get()
                    + " grant(s) overlapped a conflicting hold in this JVM: the lock did not exclude");
        }
        if (t.timeouts.get() > 0) {
            notes.finding(scenario + " " + subject.id() + ": " + t.timeouts.get()
                    + " op(s) not granted within " + WAIT.toSeconds() + " s");
        }
        long ops = t.reads.size() + t.writes.size();
        KeySetResult result = new KeySetResult(scenario, group, subject.id(), subject.label(), subject.role(),
                readWrite() ? RW_THREADS : MULTI_THREADS, readWrite() ? RW_KEYS : MULTI_KEYS,
                readWrite() ? 1 : KEYS_PER_OP, readWrite() ? READ_PERCENT : 0, t.seconds, ops,
                ops / t.seconds, t.reads.size(), t.reads.percentileMicros(50), t.reads.percentileMicros(99),
                t.writes.size(), t.writes.percentileMicros(50), t.writes.percentileMicros(99),
                t.timeouts.get(), t.requests < 0 ? Double.NaN : t.requests / (double) ops);
        notes.progress(String.format("  %-28s %9.0f ops/s  read p50 %8.1f p99 %8.1f µs  write p50 %8.1f p99 %8.1f µs"
                + "  %.2f requests/op", subject.id(), result.opsPerSecond(), result.readP50(), result.readP99(),
                result.writeP50(), result.writeP99(), result.serverRequestsPerOp()));
        return result;
    }

    private static final class Tally {
        final Latencies reads = new Latencies();
        final Latencies writes = new Latencies();
        final AtomicLong timeouts = new AtomicLong();
        final AtomicLong violations = new AtomicLong();
        double seconds;
        boolean failed;
        long requests;
    }

    /**
     * Counts what the server receives during a measured round, where that is cheap to read and
     * does not slow the server down (ZooKeeper {@code mntr}, etcd metrics); null elsewhere (Redis's
     * {@code MONITOR} would slow every command down; PostgreSQL counts late). The count includes
     * the clients' heartbeats, a few per second, so it is an upper bound.
     */
    private static ServerRequests counter(String group, Endpoints endpoints) throws Exception {
        return group.equals("zookeeper") || group.equals("etcd")
                ? ServerRequests.start(group, endpoints.get(group)) : null;
    }

    private void measure(LockSubject subject, String phase, Duration duration, Tally tally) throws Exception {
        int threads = readWrite() ? RW_THREADS : MULTI_THREADS;
        int keyCount = readWrite() ? RW_KEYS : MULTI_KEYS;
        // Warm-up and measurement use other keys, so a hold left over from one cannot touch the other.
        String prefix = subject.id().replace('/', '.') + ":" + scenario + ":" + phase + ":k";
        AtomicIntegerArray holders = new AtomicIntegerArray(keyCount);
        CountDownLatch start = new CountDownLatch(1);
        Latencies[] reads = new Latencies[threads];
        Latencies[] writes = new Latencies[threads];
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        long[] startedAt = new long[1];
        for (int t = 0; t < threads; t++) {
            int index = t;
            reads[t] = new Latencies();
            writes[t] = new Latencies();
            Thread worker = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                try {
                    start.await();
                    long deadline = startedAt[0] + duration.toNanos();
                    while (System.nanoTime() - deadline < 0 && failure.get() == null) {
                        int[] picked = pick(random, keyCount);
                        boolean shared = readWrite() && random.nextInt(100) < READ_PERCENT;
                        long begin = System.nanoTime();
                        Held held = readWrite()
                                ? subject.acquire(prefix + picked[0], shared, WAIT)
                                : subject.acquireAll(keys(prefix, picked), WAIT);
                        long granted = System.nanoTime();
                        if (held == null) {
                            tally.timeouts.incrementAndGet();
                            continue;
                        }
                        for (int k : picked) {
                            int now = shared ? holders.incrementAndGet(k) : holders.addAndGet(k, WRITER);
                            if (shared ? now >= WRITER : now != WRITER) {
                                tally.violations.incrementAndGet();
                            }
                        }
                        LockSupport.parkNanos(CRITICAL_SECTION_NANOS);
                        for (int k : picked) {
                            holders.addAndGet(k, shared ? -1 : -WRITER);
                        }
                        long releasing = System.nanoTime();
                        held.release();
                        long nanos = (granted - begin) + (System.nanoTime() - releasing);
                        (shared ? reads : writes)[index].add(nanos);
                    }
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-" + scenario + "-" + t);
            workers.add(worker);
            worker.start();
        }
        startedAt[0] = System.nanoTime();
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsed = System.nanoTime() - startedAt[0];
        if (failure.get() != null) {
            throw failure.get();
        }
        for (int t = 0; t < threads; t++) {
            tally.reads.addAll(reads[t]);
            tally.writes.addAll(writes[t]);
        }
        tally.seconds += elapsed / 1e9;
    }

    /** One random key index for read-write; {@value #KEYS_PER_OP} distinct ones, ascending, for multi-key. */
    private int[] pick(ThreadLocalRandom random, int keyCount) {
        if (readWrite()) {
            return new int[] {random.nextInt(keyCount)};
        }
        int[] picked = random.ints(0, keyCount).distinct().limit(KEYS_PER_OP).sorted().toArray();
        return picked;
    }

    private static List<String> keys(String prefix, int[] picked) {
        List<String> keys = new ArrayList<>(picked.length);
        for (int k : picked) {
            keys.add(prefix + String.format("%02d", k));
        }
        return keys;
    }
}
