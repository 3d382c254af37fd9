package dev.mortise.lock.chaos;

import static dev.mortise.lock.chaos.WorkerLog.log;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockClientBuilder;
import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * One worker process of a chaos run. It loops until its time is up: acquire a lock on one of
 * the keys (several at once in the {@link Workload#MIXED} workload), do a fenced read of each
 * key's value from the {@link Ledger}, sleep (the critical section, where the controller
 * injects its faults), write value + 1 carrying the fencing token, release. In the
 * {@link Workload#LEADER} workload it is instead one candidate of a leader election and runs
 * those cycles only while it leads, with its epoch as the token ({@link LeaderCycles}). In the
 * {@link Workload#SHARED} workload some cycles are a reader's, in the {@link Workload#PERMITS}
 * workload every cycle takes a semaphore permit: both in {@link ModeCycles}.
 *
 * <p>It deliberately does <em>not</em> call {@code ensureValid()} before writing: the point is
 * to show that the storage-side token check alone rejects a holder that was paused past its
 * lease, as a real client whose check passed just before a GC pause would be. It does sample
 * {@code isValid()} of every lease it holds throughout the critical section - at the grant,
 * after the read, every {@value WorkerLog#SAMPLE_EVERY_MS} ms of the sleep, before and after the write
 * and before the release - so the checker can tell whether a holder ever believed it held a
 * key another worker had already been granted (the validity overlap).
 *
 * <p>Every step is one line on stdout,
 * {@code EV <epochMillis> <TYPE> <key> <token> <value> <monoNanos> <wallMicros>}, which the
 * controller parses ({@link WorkerEvent}), written by {@link WorkerLog}; the key is percent-encoded
 * ({@link ChaosKeys}). The
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

    /** Percent of {@link Workload#SHARED} cycles that hold their key shared (the rest exclusive). */
    static final int SHARED_PERCENT = 60;

    /** The permit count of the {@link Workload#PERMITS} semaphore: below the default three workers, so they contend. */
    static final int PERMITS = 2;

    /** Keys a {@link Workload#MIXED} cycle holds at once. */
    static final int MIXED_KEYS_PER_CYCLE = 2;

    private ChaosWorker() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 11) {
            System.err.println("usage: ChaosWorker backend target ledgerUrl workerId seconds leaseMs csMs keys"
                    + " fenced|guard|unfenced basic|mixed|leader|shared|permits|deadlock seed");
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
                    SlowListener.block(lease);
                }
            });
        }
        try (Ledger ledger = Ledger.connect(ledgerUrl, "postgres"); LockClient locks = builder.build()) {
            log("START", "-", 0, 0);
            ResourceSampler.start();
            // Counted from here: a slow JVM or connection start-up must not eat the run. On the
            // monotonic clock: a worker whose wall clock jumps (client-clock-jump) runs its time.
            long endAt = System.nanoTime() + seconds * 1_000_000_000L;
            if (workload == Workload.LEADER) {
                LeaderCycles.lead(locks, ledger, guard, worker, keys.get(0), csMillis, fenced, endAt);
            }
            ExclusiveCycle exclusive = new ExclusiveCycle(locks, ledger, guard, worker, csMillis, fenced, workload,
                    lease, random);
            while (workload != Workload.LEADER && System.nanoTime() - endAt < 0) {
                List<String> mine = pick(keys, workload, random);
                try {
                    if (workload == Workload.PERMITS) {
                        ModeCycles.permit(locks, mine.get(0), PERMITS, csMillis);
                    } else if (workload == Workload.SHARED && random.nextInt(100) < SHARED_PERCENT) {
                        ModeCycles.read(locks, ledger, guard, mine.get(0), csMillis);
                    } else {
                        exclusive.run(mine);
                    }
                } catch (LockTimeoutException | LockDeadlockException e) {
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

    /**
     * The keys of one cycle: one at random, or (mixed) several, in one global order so no two workers
     * deadlock, or (deadlock) as many in a random order, so they do.
     */
    private static List<String> pick(List<String> keys, Workload workload, Random random) {
        boolean several = workload == Workload.MIXED || workload == Workload.DEADLOCK;
        if (!several || keys.size() < 2) {
            return List.of(keys.get(random.nextInt(keys.size())));
        }
        List<String> shuffled = new ArrayList<>(keys);
        Collections.shuffle(shuffled, random);
        List<String> picked = new ArrayList<>(shuffled.subList(0, Math.min(MIXED_KEYS_PER_CYCLE, keys.size())));
        if (workload == Workload.MIXED) {
            Collections.sort(picked);
        }
        return picked;
    }
}
