package dev.mortise.lock.chaos;

import static dev.mortise.lock.chaos.WorkerLog.log;
import static dev.mortise.lock.chaos.WorkerLog.sample;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A {@link ChaosWorker}'s exclusive cycle, of the {@link Workload#BASIC} and {@link Workload#MIXED}
 * and {@link Workload#DEADLOCK} workloads and the writers of {@link Workload#SHARED}: acquire every key of the cycle (a
 * {@link LeaseMode} each in the mixed workload), a fenced read of each, the extends, the critical
 * section (sampled, where the faults strike), a fenced write of value + 1 for each, the releases
 * in reverse order. One per worker, used by its main thread only.
 */
final class ExclusiveCycle {

    private final LockClient locks;
    private final Ledger ledger;
    /** The {@code lock-fencing} guard of {@link LedgerMode#GUARD}, or null: the ledger's own check. */
    private final JdbcFenceGuard guard;
    private final String worker;
    private final long csMillis;
    /** False for the negative control: the ledger accepts every write. */
    private final boolean fenced;
    private final Workload workload;
    /** The client's default lease. */
    private final Duration lease;
    private final Random random;

    ExclusiveCycle(LockClient locks, Ledger ledger, JdbcFenceGuard guard, String worker, long csMillis,
                   boolean fenced, Workload workload, Duration lease, Random random) {
        this.locks = locks;
        this.ledger = ledger;
        this.guard = guard;
        this.worker = worker;
        this.csMillis = csMillis;
        this.fenced = fenced;
        this.workload = workload;
        this.lease = lease;
        this.random = random;
    }

    /** One cycle on {@code keys} (in the order given); a {@link dev.mortise.lock.LockTimeoutException} once WAIT_TIMEOUT is logged. */
    void run(List<String> keys) throws Exception {
        List<Held> held = new ArrayList<>();
        try {
            for (String key : keys) {
                acquire(key, held);
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
                extend(h);
            }
            // The critical section: sampled every SAMPLE_EVERY_MS, where the faults strike.
            WorkerLog.sleepSampled(held, csMillis);
            for (int i = 0; i < held.size(); i++) {
                write(held.get(i), reads.get(i));
            }
        } finally {
            // Released in reverse order of acquisition.
            for (int i = held.size() - 1; i >= 0; i--) {
                Held h = held.get(i);
                ModeCycles.release(h.key(), h.token(), List.of(h), h.lease()::close);
            }
        }
    }

    /** Acquires {@code key} in a mode of the workload, logs the grant, adds it to {@code held} and samples them all. */
    private void acquire(String key, List<Held> held) {
        LeaseMode mode = workload != Workload.MIXED ? LeaseMode.RENEWED
                : LeaseMode.values()[random.nextInt(LeaseMode.values().length)];
        LockSpec spec = spec(key, mode);
        LockLease granted = ModeCycles.awaited(key, () -> locks.acquire(spec));
        long token = granted.fencingToken();
        log("ACQUIRED", key, token, 0);
        if (workload == Workload.DEADLOCK) {
            log(DeadlockRules.HOLDER, key, token, DeadlockRules.holderNumber(granted.holderId()));
        }
        if (mode != LeaseMode.RENEWED) {
            log("MODE_" + mode.name(), key, token, 0);
        }
        held.add(new Held(key, granted, token, mode));
        sample(held);
        granted.onLost(event -> {
            log("LOST", key, token, 0);
            if (workload == Workload.MIXED) {
                SlowListener.block(lease);
            }
        });
    }

    /** What a hold of {@code key} in {@code mode} asks for: a 10 s wait, and an explicit lease where the mode has one. */
    private LockSpec spec(String key, LeaseMode mode) {
        LockSpec spec = LockSpec.of(key).waitFor(Duration.ofSeconds(10));
        if (mode == LeaseMode.EXPLICIT_SHORTER) {
            spec = spec.lease(LeaseMode.shorter(lease));
        } else if (mode == LeaseMode.EXPLICIT_LONGER) {
            spec = spec.lease(lease.multipliedBy(2));
        }
        return spec;
    }

    /** The extend of an EXTEND_* hold; a refused extend is logged and the cycle goes on. */
    private void extend(Held h) {
        Duration to = switch (h.mode()) {
            case EXTEND_LONGER -> lease.multipliedBy(2);
            case EXTEND_SHORTER -> LeaseMode.shorter(lease);
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

    /** The fenced write of the value read + 1, sampled before and after. */
    private void write(Held h, Ledger.Read read) throws Exception {
        sample(List.of(h));
        boolean accepted = guard != null
                ? ledger.writeGuarded(guard, h.key(), h.token(), worker, read.value(), read.value() + 1,
                        read.at())
                : ledger.write(h.key(), h.token(), worker, read.value(), read.value() + 1, read.at(), fenced);
        log(accepted ? "WRITE_OK" : "WRITE_REJECTED", h.key(), h.token(), read.value() + 1);
        sample(List.of(h));
    }
}
