package dev.mortise.lock.chaos;

import static dev.mortise.lock.chaos.WorkerLog.log;
import static dev.mortise.lock.chaos.WorkerLog.sample;
import static dev.mortise.lock.chaos.WorkerLog.sleepSampled;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.PermitLease;
import dev.mortise.lock.fencing.JdbcFenceGuard;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The worker cycles of the {@link Workload#SHARED} readers and the {@link Workload#PERMITS}
 * holders, next to the exclusive cycle ({@link ExclusiveCycle}), in its line format. Each logs the
 * hold's mode right after ACQUIRED ({@link HoldModes}), so the checker knows which holds may
 * coexist.
 */
final class ModeCycles {

    /** How long a cycle waits for its hold, as the exclusive cycle does. */
    private static final Duration WAIT = Duration.ofSeconds(10);

    private ModeCycles() {
    }

    /**
     * One reader cycle on {@code key}: a shared hold, a fenced READ with the hold's token, the
     * sampled critical section, a second fenced read (READ_AGAIN), a sample, the release. The
     * read raises the key's fence to the reader's token: a writer granted before the reader (a
     * lower token) can no longer write, and one granted after it (a higher token, every grant of
     * a key in either mode drawing on one counter) is not refused. So an accepted write between
     * the reader's two reads came from a writer granted while the reader held the key, and the
     * values of READ and READ_AGAIN differ: with a valid sample after READ_AGAIN that is a writer
     * beside a valid reader ({@link ModeRules#tornReads}). The reader never writes.
     */
    static void read(LockClient locks, Ledger ledger, JdbcFenceGuard guard, String key, long csMillis)
            throws Exception {
        LockLease granted = awaited(key, () -> locks.acquire(LockSpec.of(key).shared().waitFor(WAIT)));
        long token = granted.fencingToken();
        log("ACQUIRED", key, token, 0);
        log(HoldModes.SHARED, key, token, 0);
        List<Held> held = List.of(new Held(key, granted, token, LeaseMode.RENEWED));
        try {
            sample(held);
            granted.onLost(event -> log("LOST", key, token, 0));
            Ledger.Read first = guard != null ? ledger.readGuarded(guard, key, token) : ledger.read(key, token);
            log("READ", key, token, first.value());
            sleepSampled(held, csMillis);
            Ledger.Read again = guard != null ? ledger.readGuarded(guard, key, token) : ledger.read(key, token);
            log("READ_AGAIN", key, token, again.value());
            sample(held);
        } finally {
            release(key, token, held, granted::close);
        }
    }

    /**
     * One permit cycle on the semaphore {@code name} of {@code permits} permits: one permit,
     * ACQUIRED and MODE_PERMIT (value: the permit count) on the lock key it is held on, INSIDE,
     * the sampled critical section, OUTSIDE, a sample, the release. WAIT names the native
     * semaphore's key ({@code name#permits}), or the name itself where the permit will be one of
     * the slot keys ({@code name#permit-i}), not known before the grant.
     */
    static void permit(LockClient locks, String name, int permits, long csMillis)
            throws Exception {
        LockSemaphore semaphore = locks.semaphore(name, permits);
        String waitKey = semaphore.isNative() ? semaphore.permitsKey() : name;
        PermitLease lease = awaited(waitKey, () -> semaphore.acquire(WAIT));
        // One permit: one part, natively the semaphore's key, else its slot's.
        LockLease part = lease.parts().get(0);
        String key = part.key();
        long token = part.fencingToken();
        log("ACQUIRED", key, token, 0);
        log(HoldModes.PERMIT, key, token, permits);
        List<Held> held = List.of(new Held(key, part, token, LeaseMode.RENEWED));
        try {
            sample(held);
            lease.onLost(event -> log("LOST", key, token, 0));
            log("INSIDE", key, token, 0);
            sleepSampled(held, csMillis);
            log("OUTSIDE", key, token, 0);
            sample(held);
        } finally {
            release(key, token, held, lease::close);
        }
    }

    /**
     * A wait, as every cycle makes it: WAIT on {@code key} (it tells the controller this worker is
     * blocked in acquire: the victim of the waiter faults), then {@code acquire}; on a timeout
     * WAIT_TIMEOUT, and the {@link LockTimeoutException} is rethrown; as a deadlock's victim the
     * cycle and DEADLOCK ({@link DeadlockRules#logVictim}), and the {@link LockDeadlockException} is rethrown.
     */
    static <T> T awaited(String key, Supplier<T> acquire) {
        log("WAIT", key, 0, 0);
        try {
            return acquire.get();
        } catch (LockTimeoutException e) {
            log("WAIT_TIMEOUT", key, 0, 0);
            throw e;
        } catch (LockDeadlockException e) {
            DeadlockRules.logVictim(key, e.cycle());
            throw e;
        }
    }

    /** A release, as every cycle makes it: a sample, RELEASING, the close, RELEASED or (a lost hold) RELEASE_FAILED. */
    static void release(String key, long token, List<Held> held, Runnable close) {
        sample(held);
        // RELEASING tells the controller the release request is about to go out (release-kill).
        log("RELEASING", key, token, 0);
        try {
            close.run();
            log("RELEASED", key, token, 0);
        } catch (RuntimeException e) {
            // Expected after a pause: the hold is gone; say so rather than hide it.
            log("RELEASE_FAILED", key, token, 0);
        }
    }
}
