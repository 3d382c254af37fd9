package dev.mortise.lock.chaos;

import dev.mortise.lock.LeaderElection;
import dev.mortise.lock.LeadershipRevoked;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockClientBuilder;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker process of a chaos run. It loops until its time is up: acquire a lock on one of
 * the keys (several at once in the {@link Workload#MIXED} workload), do a fenced read of each
 * key's value from the {@link Ledger}, sleep (the critical section, where the controller
 * injects its faults), write value + 1 carrying the fencing token, release. In the
 * {@link Workload#LEADER} workload it is instead one candidate of a leader election and runs
 * those cycles only while it leads, with its epoch as the token ({@link #lead}). In the
 * {@link Workload#SHARED} workload some cycles are a reader's, in the {@link Workload#PERMITS}
 * workload every cycle takes a semaphore permit: both in {@link ModeCycles}.
 *
 * <p>It deliberately does <em>not</em> call {@code ensureValid()} before writing: the point is
 * to show that the storage-side token check alone rejects a holder that was paused past its
 * lease, as a real client whose check passed just before a GC pause would be. It does sample
 * {@code isValid()} of every lease it holds throughout the critical section - at the grant,
 * after the read, every {@value #SAMPLE_EVERY_MS} ms of the sleep, before and after the write
 * and before the release - so the checker can tell whether a holder ever believed it held a
 * key another worker had already been granted (the validity overlap).
 *
 * <p>Every step is one line on stdout,
 * {@code EV <epochMillis> <TYPE> <key> <token> <value> <monoNanos> <wallMicros>}, which the
 * controller parses ({@link WorkerEvent}); the key is percent-encoded ({@link ChaosKeys}). The
 * two last fields are the step's time on the host's monotonic clock ({@code System.nanoTime()},
 * {@code CLOCK_MONOTONIC} on Linux, which every JVM on the host reads alike) and on its wall
 * clock in microseconds ({@code Instant.now()}), for the checker's cross-worker comparisons. A
 * VALID line ({@code value} 1 or 0) carries the times read <em>before</em> {@code isValid()}
 * was called, every other line the times after the step.
 *
 * <p>Arguments, in order: backend, backend target, ledger JDBC URL, worker id, seconds, lease
 * millis, critical-section millis, keys ({@link ChaosKeys#toArgument}), {@code fenced} (the
 * ledger's own conditional write, {@link LedgerMode#BUILTIN}), {@code guard} (the
 * {@code lock-fencing} guard inside the ledger's transactions, {@link LedgerMode#GUARD}) or
 * {@code unfenced} (the negative control: the ledger accepts every write), workload
 * ({@link Workload#label}) and the seed of the worker's random choices.
 */
public final class ChaosWorker {

    /** Interval of the validity samples during the critical section's sleep. */
    static final long SAMPLE_EVERY_MS = 50;

    /** Percent of {@link Workload#SHARED} cycles that hold their key shared (the rest exclusive). */
    static final int SHARED_PERCENT = 60;

    /** The permit count of the {@link Workload#PERMITS} semaphore: below the default three workers, so they contend. */
    static final int PERMITS = 2;

    /** Keys a {@link Workload#MIXED} cycle holds at once. */
    static final int MIXED_KEYS_PER_CYCLE = 2;

    /** How a lease of a {@link Workload#MIXED} cycle is taken and changed. */
    enum LeaseMode {
        /** The client's default lease, renewed by the watchdog. */
        RENEWED,
        /** An explicit lease, not renewed, shorter than the default. */
        EXPLICIT_SHORTER,
        /** An explicit lease, not renewed, longer than the default. */
        EXPLICIT_LONGER,
        /** The default renewed lease, extended to twice the default after the read. */
        EXTEND_LONGER,
        /** The default renewed lease, extended to a shorter lease after the read. */
        EXTEND_SHORTER
    }

    private ChaosWorker() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 11) {
            System.err.println("usage: ChaosWorker backend target ledgerUrl workerId seconds leaseMs csMs keys"
                    + " fenced|guard|unfenced basic|mixed|leader|shared|permits seed");
            System.exit(2);
        }
        String backend = args[0];
        String target = args[1];
        String ledgerUrl = args[2];
        String worker = args[3];
        long seconds = Long.parseLong(args[4]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
        long csMillis = Long.parseLong(args[6]);
        List<String> keys = ChaosKeys.fromArgument(args[7]);
        boolean fenced = !"unfenced".equals(args[8]);
        // The guard's own connection is the ledger's: built once, it holds no state of its own.
        JdbcFenceGuard guard = "guard".equals(args[8]) ? Ledger.guard(ledgerUrl, "postgres") : null;
        Workload workload = Workload.of(args[9]);
        Random random = new Random(Long.parseLong(args[10]));

        dev.mortise.lock.spi.LockBackend lockBackend = Backends.create(backend, target, lease);
        // On stderr (the run's wN.err): which client library and variant this worker really ran.
        System.err.println("worker " + worker + ": " + backend + " on " + lockBackend + ", workload " + args[9]);
        LockClientBuilder builder = LockClient.builder(lockBackend).defaultLease(lease);
        if (workload == Workload.MIXED) {
            builder.listener(event -> {
                if (event.type() == LockEvent.Type.LOST) {
                    slowListener(lease);
                }
            });
        }
        try (Ledger ledger = Ledger.connect(ledgerUrl, "postgres"); LockClient locks = builder.build()) {
            log("START", "-", 0, 0);
            startResourceSampler();
            // Counted from here: a slow JVM or connection start-up must not eat the run. On the
            // monotonic clock: a worker whose wall clock jumps (client-clock-jump) runs its time.
            long endAt = System.nanoTime() + seconds * 1_000_000_000L;
            if (workload == Workload.LEADER) {
                lead(locks, ledger, guard, worker, keys.get(0), csMillis, fenced, endAt);
            }
            while (workload != Workload.LEADER && System.nanoTime() - endAt < 0) {
                List<String> mine = pick(keys, workload, random);
                try {
                    if (workload == Workload.PERMITS) {
                        ModeCycles.permit(locks, mine.get(0), PERMITS, csMillis);
                    } else if (workload == Workload.SHARED && random.nextInt(100) < SHARED_PERCENT) {
                        ModeCycles.read(locks, ledger, guard, mine.get(0), csMillis);
                    } else {
                        cycle(locks, ledger, guard, worker, mine, csMillis, fenced, workload, lease, random);
                    }
                } catch (LockTimeoutException e) {
                    // Logged by the cycle for the key it waited for.
                } catch (Exception e) {
                    // Keep looping: a fault on the server side must not end the worker's run.
                    log("ERROR", mine.get(0), 0, 0);
                    System.err.println("worker " + worker + " on " + mine + ": " + e);
                    Thread.sleep(100);
                }
            }
            log("END", "-", 0, 0);
            if (workload == Workload.MIXED) {
                // Notifications a slow listener held back (a victim's onLost) are told before the client closes.
                Thread.sleep(lease.toMillis());
            }
        }
        System.out.flush();
        System.exit(0);
    }

    /** The keys of one cycle: one at random, or (mixed) several, in one global order so no two workers deadlock. */
    private static List<String> pick(List<String> keys, Workload workload, Random random) {
        if (workload != Workload.MIXED || keys.size() < 2) {
            return List.of(keys.get(random.nextInt(keys.size())));
        }
        List<String> shuffled = new ArrayList<>(keys);
        Collections.shuffle(shuffled, random);
        List<String> picked = new ArrayList<>(shuffled.subList(0, Math.min(MIXED_KEYS_PER_CYCLE, keys.size())));
        Collections.sort(picked);
        return picked;
    }

    /** One key held in a cycle. */
    record Held(String key, LockLease lease, long token, LeaseMode mode) {
    }

    private static void cycle(LockClient locks, Ledger ledger, JdbcFenceGuard guard, String worker, List<String> keys, long csMillis,
                              boolean fenced, Workload workload, Duration lease, Random random) throws Exception {
        List<Held> held = new ArrayList<>();
        try {
            for (String key : keys) {
                LeaseMode mode = workload != Workload.MIXED ? LeaseMode.RENEWED
                        : LeaseMode.values()[random.nextInt(LeaseMode.values().length)];
                LockSpec spec = LockSpec.of(key).waitFor(Duration.ofSeconds(10));
                if (mode == LeaseMode.EXPLICIT_SHORTER) {
                    spec = spec.lease(shorter(lease));
                } else if (mode == LeaseMode.EXPLICIT_LONGER) {
                    spec = spec.lease(lease.multipliedBy(2));
                }
                // WAIT tells the controller this worker is blocked in acquire: the victim of the waiter faults.
                log("WAIT", key, 0, 0);
                LockLease granted;
                try {
                    granted = locks.acquire(spec);
                } catch (LockTimeoutException e) {
                    log("WAIT_TIMEOUT", key, 0, 0);
                    throw e;
                }
                long token = granted.fencingToken();
                log("ACQUIRED", key, token, 0);
                if (mode != LeaseMode.RENEWED) {
                    log("MODE_" + mode.name(), key, token, 0);
                }
                held.add(new Held(key, granted, token, mode));
                sample(held);
                granted.onLost(event -> {
                    log("LOST", key, token, 0);
                    if (workload == Workload.MIXED) {
                        slowListener(lease);
                    }
                });
            }
            List<Ledger.Read> reads = new ArrayList<>();
            for (Held h : held) {
                Ledger.Read read = guard != null ? ledger.readGuarded(guard, h.key(), h.token())
                        : ledger.read(h.key(), h.token());
                log("READ", h.key(), h.token(), read.value());
                reads.add(read);
            }
            sample(held);
            for (Held h : held) {
                extend(h, lease);
            }
            // The critical section: sampled every SAMPLE_EVERY_MS, where the faults strike.
            long until = System.nanoTime() + csMillis * 1_000_000;
            for (long left = csMillis; left > 0; left = (until - System.nanoTime()) / 1_000_000) {
                Thread.sleep(Math.min(SAMPLE_EVERY_MS, left));
                sample(held);
            }
            for (int i = 0; i < held.size(); i++) {
                Held h = held.get(i);
                Ledger.Read read = reads.get(i);
                sample(List.of(h));
                boolean accepted = guard != null
                        ? ledger.writeGuarded(guard, h.key(), h.token(), worker, read.value(), read.value() + 1,
                                read.at())
                        : ledger.write(h.key(), h.token(), worker, read.value(), read.value() + 1, read.at(), fenced);
                log(accepted ? "WRITE_OK" : "WRITE_REJECTED", h.key(), h.token(), read.value() + 1);
                sample(List.of(h));
            }
        } finally {
            // Released in reverse order of acquisition.
            for (int i = held.size() - 1; i >= 0; i--) {
                Held h = held.get(i);
                sample(List.of(h));
                // RELEASING tells the controller the release request is about to go out (release-kill).
                log("RELEASING", h.key(), h.token(), 0);
                try {
                    h.lease().close();
                    log("RELEASED", h.key(), h.token(), 0);
                } catch (RuntimeException e) {
                    // Expected after a pause: the lease is gone; say so rather than hide it.
                    log("RELEASE_FAILED", h.key(), h.token(), 0);
                }
            }
        }
    }

    /** Writes a {@link Workload#LEADER} term makes before its leader steps down, so a run without faults elects too. */
    static final int LEADER_WRITES_PER_TERM = 8;

    /** How often a candidate that does not lead looks whether it was elected (the failover time's resolution). */
    static final long LEADER_POLL_MS = 5;

    /**
     * The {@link Workload#LEADER} loop until {@code endAt}: one candidate of group {@code chaos}
     * on the lock {@code key}. While {@code epoch()} says it leads it runs cycles of fenced read,
     * critical section ({@code csMillis}, sampled), fenced write, all with token = epoch; like the
     * basic workload it does not look at its leadership again before the write, so a leader
     * paused or cut past its lease writes with a stale epoch and the ledger must refuse it. The
     * grant is logged as ACQUIRED (token = epoch, value = the monotonic time just before it asked
     * for the epoch) by this thread when it first sees the epoch, before it reads; the term's end as LOST (revoked: lost) or RELEASED (stepped down,
     * closed) from the election's callback; WAIT when it contends (started, or revoked).
     */
    private static void lead(LockClient locks, Ledger ledger, JdbcFenceGuard guard, String worker, String key,
                             long csMillis, boolean fenced, long endAt) throws Exception {
        LeaderElection election = locks.leadership("chaos").key(key)
                .onElected(epoch -> log("ELECTED", key, epoch, 0))
                .onRevoked(revoked -> {
                    boolean lost = revoked.reason() == LeadershipRevoked.Reason.LOST;
                    log(lost ? "LOST" : "RELEASED", key, revoked.epoch(), 0);
                    log("WAIT", key, 0, 0);
                })
                .start();
        log("WAIT", key, 0, 0);
        long lastEpoch = -1;
        int writesThisTerm = 0;
        try {
            while (System.nanoTime() - endAt < 0) {
                // Read before asking: the ACQUIRED line carries it, so the checker orders elections
                // only by windows that cannot overlap (LedgerChecker.epochRegressions).
                long askedAt = System.nanoTime();
                java.util.OptionalLong leading = election.epoch();
                if (leading.isEmpty()) {
                    Thread.sleep(LEADER_POLL_MS);
                    continue;
                }
                long epoch = leading.getAsLong();
                if (epoch != lastEpoch) {
                    log("ACQUIRED", key, epoch, askedAt);
                    lastEpoch = epoch;
                    writesThisTerm = 0;
                }
                try {
                    Ledger.Read read = guard != null ? ledger.readGuarded(guard, key, epoch) : ledger.read(key, epoch);
                    log("READ", key, epoch, read.value());
                    sampleLeader(election, key, epoch);
                    long until = System.nanoTime() + csMillis * 1_000_000;
                    for (long left = csMillis; left > 0; left = (until - System.nanoTime()) / 1_000_000) {
                        Thread.sleep(Math.min(SAMPLE_EVERY_MS, left));
                        sampleLeader(election, key, epoch);
                    }
                    boolean accepted = guard != null
                            ? ledger.writeGuarded(guard, key, epoch, worker, read.value(), read.value() + 1, read.at())
                            : ledger.write(key, epoch, worker, read.value(), read.value() + 1, read.at(), fenced);
                    log(accepted ? "WRITE_OK" : "WRITE_REJECTED", key, epoch, read.value() + 1);
                    sampleLeader(election, key, epoch);
                } catch (Exception e) {
                    // The ledger failed (not the lock server: it is not behind the faults' proxies).
                    log("ERROR", key, epoch, 0);
                    System.err.println("worker " + worker + " leading " + ChaosKeys.quoted(key) + ": " + e);
                    Thread.sleep(100);
                }
                if (++writesThisTerm >= LEADER_WRITES_PER_TERM && election.stepDown()) {
                    log("STEP_DOWN", key, epoch, 0);
                }
            }
        } finally {
            // Fires onRevoked (RELEASED) if leading, so the term's end is logged before END.
            election.close();
        }
    }

    /** One VALID line for the term of {@code epoch}: 1 only while the election still leads with that epoch. */
    private static void sampleLeader(LeaderElection election, String key, long epoch) {
        long mono = System.nanoTime();
        long wall = wallMicros();
        // epoch(), not isLeader(): true only for this term, not for a later term of the same candidate.
        boolean valid = election.epoch().orElse(-1) == epoch;
        log(mono, wall, "VALID", key, epoch, valid ? 1 : 0);
    }

    /** An explicit or extended lease shorter than the default: half of it, but at least the 1 s etcd can honour. */
    static Duration shorter(Duration lease) {
        return Duration.ofMillis(Math.max(1000, lease.toMillis() / 2));
    }

    /** The extend of an EXTEND_* hold; a refused extend is logged and the cycle goes on. */
    private static void extend(Held h, Duration lease) {
        Duration to = switch (h.mode()) {
            case EXTEND_LONGER -> lease.multipliedBy(2);
            case EXTEND_SHORTER -> shorter(lease);
            default -> null;
        };
        if (to == null) {
            return;
        }
        try {
            h.lease().extend(to);
            log("EXTENDED", h.key(), h.token(), to.toMillis());
        } catch (RuntimeException e) {
            log("EXTEND_FAILED", h.key(), h.token(), to.toMillis());
            System.err.println("extend of " + ChaosKeys.quoted(h.key()) + " to " + to + ": " + e);
        }
        sample(List.of(h));
    }

    /** One VALID line per lease, with the times read before its {@code isValid()} call. */
    static void sample(List<Held> held) {
        for (Held h : held) {
            long mono = System.nanoTime();
            long wall = wallMicros();
            boolean valid = h.lease().isValid();
            log(mono, wall, "VALID", h.key(), h.token(), valid ? 1 : 0);
        }
    }

    /** System property: sample this JVM's resources every so many millis (the soak); unset, none. */
    static final String RESOURCE_EVERY_MS = "mortise.chaos.resourceEveryMs";

    /** The resource lines a sampler logs, each with its figure as the value: what the soak plots. */
    static final List<String> RESOURCES = List.of("HEAP_BYTES", "THREADS", "FDS", "SOCKETS");

    /**
     * With {@value #RESOURCE_EVERY_MS} set, a daemon thread logs this JVM's resources at that
     * interval, the first at once: the heap in use right after a full collection
     * ({@code System.gc()}, so garbage does not read as a leak), live threads, open file
     * descriptors and, of those, sockets (its connections).
     */
    private static void startResourceSampler() {
        String every = System.getProperty(RESOURCE_EVERY_MS);
        if (every == null) {
            return;
        }
        long millis = Long.parseLong(every);
        Thread sampler = new Thread(() -> {
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            while (true) {
                System.gc();
                Runtime rt = Runtime.getRuntime();
                long fds = 0;
                long sockets = 0;
                java.io.File[] open = new java.io.File("/proc/self/fd").listFiles();
                for (java.io.File fd : open == null ? new java.io.File[0] : open) {
                    fds++;
                    try {
                        if (java.nio.file.Files.readSymbolicLink(fd.toPath()).toString().startsWith("socket:")) {
                            sockets++;
                        }
                    } catch (java.io.IOException e) {
                        // Closed while listed: not counted as a socket.
                    }
                }
                log("HEAP_BYTES", "-", 0, rt.totalMemory() - rt.freeMemory());
                log("THREADS", "-", 0, threads.getThreadCount());
                log("FDS", "-", 0, fds);
                log("SOCKETS", "-", 0, sockets);
                try {
                    Thread.sleep(millis);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "chaos-resources");
        sampler.setDaemon(true);
        sampler.start();
    }

    /** Last end of a slow listener's block, so at most one lease in two is spent blocked. */
    private static final AtomicLong LAST_SLOW_END = new AtomicLong();

    /**
     * A listener that blocks its (notification) thread for one lease, as slow clean-up on a
     * loss would; skipped on the worker's own thread (a loss its close found: blocking there
     * only slows the loop) and when the last block ended less than a lease ago, so the backlog
     * of notifications stays bounded and the victims' LOST lines still arrive within the run.
     */
    private static void slowListener(Duration lease) {
        if (Thread.currentThread().getName().equals("main")) {
            return;
        }
        long now = System.nanoTime();
        long last = LAST_SLOW_END.get();
        if (last != 0 && now - last < lease.toNanos()) {
            return;
        }
        try {
            log("SLOW_LISTENER", "-", 0, lease.toMillis());
            Thread.sleep(lease.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            LAST_SLOW_END.set(System.nanoTime());
        }
    }

    private static long wallMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }

    /** One event line, timed now. */
    static void log(String type, String key, long token, long value) {
        long mono = System.nanoTime();
        log(mono, wallMicros(), type, key, token, value);
    }

    /** One event line; synchronized because onLost and listeners fire on other threads. */
    static synchronized void log(long mono, long wallMicros, String type, String key, long token, long value) {
        System.out.println("EV " + wallMicros / 1000 + " " + type + " " + ChaosKeys.encode(key) + " " + token + " "
                + value + " " + mono + " " + wallMicros);
        System.out.flush();
    }
}
