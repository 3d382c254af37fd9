package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.PermitLease;
import dev.mortise.lock.internal.group.GroupLease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The generic {@link LockSemaphore}, built on the public {@link LockClient} API of any backend:
 * permit {@code i} is the exclusive lock key {@code name + "#permit-" + i} (a slot). Use
 * {@link LockClient#semaphore}.
 *
 * <p>An acquisition of n permits has an owner id of its own (so permits never nest in other holds
 * of the calling thread) and loops until its deadline:
 * <ol>
 *   <li>a pass: try each slot it does not hold yet once, without waiting, starting at a random
 *       slot (so clients do not all collide on slot 0), until it holds n;</li>
 *   <li>if it holds fewer than n, it releases them (it never blocks while holding slots, so two
 *       callers asking for several permits cannot each hold some and wait for the other's), and
 *       blocks on one slot, a different one each turn, for at most {@link #STEP}: the backend's
 *       wake-up for that slot (a pub/sub message, a watch) ends the wait early, and a slot freed
 *       elsewhere is seen by the next pass;</li>
 *   <li>a slot won by blocking is kept and the next pass tries for the rest.</li>
 * </ol>
 * On timeout, interrupt or failure every slot taken is released before the caller hears of it
 * (each slot's own acquire already leaves nothing behind). No fairness: whoever's pass comes first
 * wins. A backend with a native semaphore (a Redis script, etcd revision order, a ZooKeeper
 * recipe, JDBC rows) can replace this class behind {@link LockClient#semaphore} later.
 *
 * <p>Thread-safe and stateless apart from its name, count and client.
 */
final class SlotSemaphore implements LockSemaphore {

    /** How long one blocking turn waits on one slot before every slot is tried again. */
    static final Duration STEP = Duration.ofMillis(200);

    private final LockClient client;
    private final String name;
    private volatile int permits;

    SlotSemaphore(LockClient client, String name, int permits) {
        checkNameAndCount(client.backendName(), name, permits);
        this.client = client;
        this.name = name;
        this.permits = permits;
    }

    /** The name and count checks both semaphores share. */
    static void checkNameAndCount(String backend, String name, int permits) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("Semaphore name must not be null or blank, was "
                    + (name == null ? "null" : "'" + name + "'") + " (backend '" + backend
                    + "'): name the resource the permits guard, e.g. \"exports\"");
        }
        if (permits < 1) {
            throw new IllegalArgumentException("Semaphore '" + name + "' needs at least 1 permit, was " + permits
                    + " (backend '" + backend + "'): pass how many holders may run at once");
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public boolean isNative() {
        return false;
    }

    /** Changes this handle's count only: the slot fallback stores no count (see {@link LockSemaphore}). */
    @Override
    public void setPermits(int permits) {
        checkNameAndCount(client.backendName(), name, permits);
        this.permits = permits;
    }

    @Override
    public PermitLease acquire(int n, Duration wait) {
        return take(n, wait, null, true).orElseThrow();
    }

    @Override
    public PermitLease acquire(int n, Duration wait, Duration lease) {
        return take(n, wait, checkLease(client.backendName(), name, lease), true).orElseThrow();
    }

    @Override
    public Optional<PermitLease> tryAcquire(int n, Duration wait) {
        return take(n, wait, null, false);
    }

    @Override
    public Optional<PermitLease> tryAcquire(int n, Duration wait, Duration lease) {
        return take(n, wait, checkLease(client.backendName(), name, lease), false);
    }

    private Optional<PermitLease> take(int n, Duration wait, Duration lease, boolean throwOnTimeout) {
        int permits = this.permits; // one count for the whole acquisition
        check(client.backendName(), name, permits, n, wait);
        String owner = "semaphore:" + name + ":" + UUID.randomUUID();
        long start = System.nanoTime();
        int offset = ThreadLocalRandom.current().nextInt(permits);
        Map<Integer, LockLease> taken = new TreeMap<>();
        boolean complete = false;
        try {
            for (int turn = 0; ; turn++) {
                for (int k = 0; k < permits && taken.size() < n; k++) {
                    int slot = (offset + k) % permits;
                    if (!taken.containsKey(slot)) {
                        client.tryAcquire(spec(slot, Duration.ZERO, lease, owner)).ifPresent(l -> taken.put(slot, l));
                    }
                }
                if (taken.size() == n) {
                    PermitLease granted = new SlotPermitLease(name, client.backendName(), taken);
                    complete = true;
                    return Optional.of(granted);
                }
                // hold nothing while blocking: see the class comment
                giveBack(taken);
                Duration left = wait.minusNanos(System.nanoTime() - start);
                if (left.isNegative() || left.isZero()) {
                    if (throwOnTimeout) {
                        throw timedOut(n, wait, permits);
                    }
                    return Optional.empty();
                }
                int slot = (offset + turn) % permits;
                Duration step = left.compareTo(STEP) < 0 ? left : STEP;
                client.tryAcquire(spec(slot, step, lease, owner)).ifPresent(l -> taken.put(slot, l));
            }
        } catch (RuntimeException | Error failure) {
            for (RuntimeException release : GroupLease.closeAll(new ArrayList<>(taken.values()), Duration.ZERO)) {
                failure.addSuppressed(release);
            }
            taken.clear();
            throw failure;
        } finally {
            if (!complete && !taken.isEmpty()) {
                giveBack(taken);
            }
        }
    }

    private LockSpec spec(int slot, Duration wait, Duration lease, String owner) {
        LockSpec spec = LockSpec.of(slotKey(slot)).waitFor(wait).owner(owner);
        return lease == null ? spec : spec.lease(lease);
    }

    /**
     * Releases the slots of a pass that did not get enough. A slot lost meanwhile does not matter
     * (it is given up anyway); a release the server did not get is reported, since that slot then
     * stays taken until its lease runs out.
     */
    private static void giveBack(Map<Integer, LockLease> taken) {
        List<RuntimeException> failures = GroupLease.closeAll(new ArrayList<>(taken.values()), Duration.ZERO);
        taken.clear();
        failures.removeIf(f -> f instanceof LockLostException);
        GroupLease.throwTogether(failures);
    }

    static void check(String backend, String name, int permits, int n, Duration wait) {
        if (n < 1 || n > permits) {
            throw new IllegalArgumentException("Cannot acquire " + n + " permits of semaphore '" + name + "' (backend '"
                    + backend + "'): it has " + permits + ", so ask for 1 to " + permits);
        }
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("Wait time for semaphore '" + name + "' must be zero or positive, was "
                    + wait + " (backend '" + backend + "'): pass Duration.ZERO to try once");
        }
    }

    static Duration checkLease(String backend, String name, Duration lease) {
        if (lease == null || lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("Explicit lease for semaphore '" + name + "' must be positive, was "
                    + lease + " (backend '" + backend + "'): use the overload without a lease for a "
                    + "renewed one");
        }
        return lease;
    }

    private LockTimeoutException timedOut(int n, Duration wait, int permits) {
        return new LockTimeoutException("Could not acquire " + n + " of the " + permits + " permits of semaphore '"
                + name + "' on backend '" + client.backendName() + "' within " + wait + ": fewer than " + n
                + " slots (" + slotKey(0) + " ...) were free together. None is held now. Wait longer, ask for fewer "
                + "permits, or find the holders (LockClient.heldLocks on each client lists the slot keys).",
                name, client.backendName());
    }

    @Override
    public String toString() {
        return "LockSemaphore[name=" + name + ", permits=" + permits + ", backend=" + client.backendName() + "]";
    }
}
