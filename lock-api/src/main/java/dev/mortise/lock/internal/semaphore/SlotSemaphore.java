package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.PermitLease;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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
final class SlotSemaphore extends SemaphoreForms {

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
    String backendName() {
        return client.backendName();
    }

    @Override
    Optional<PermitLease> take(int n, Duration wait, Duration lease, boolean throwOnTimeout) {
        SlotAcquisition acquisition = new SlotAcquisition(this, client, n, wait, lease, throwOnTimeout);
        boolean complete = false;
        try {
            while (true) {
                if (acquisition.pass()) {
                    PermitLease granted = acquisition.lease();
                    complete = true;
                    return Optional.of(granted);
                }
                LockSpec turn = acquisition.nextTurn();
                if (turn == null) {
                    return acquisition.ranOut();
                }
                client.tryAcquire(turn).ifPresent(acquisition::took);
            }
        } catch (RuntimeException | Error failure) {
            acquisition.failed(failure);
            throw failure;
        } finally {
            if (!complete) {
                acquisition.abandon();
            }
        }
    }

    /** {@link #take} without a thread waiting: the same steps, each turn's wait through {@code tryAcquireAsync}. */
    @Override
    CompletableFuture<Optional<PermitLease>> takeAsync(int n, Duration wait, Duration lease, boolean throwOnTimeout) {
        AsyncPermits<Optional<LockLease>> run = new AsyncPermits<>();
        run.begin(() -> round(run, new SlotAcquisition(this, client, n, wait,
                lease == null ? null : checkLease(client.backendName(), name, lease), throwOnTimeout)));
        return run.answer();
    }

    /** One pass and, if it is short, one turn's wait, whose answer starts the next round. */
    private void round(AsyncPermits<Optional<LockLease>> run, SlotAcquisition acquisition) {
        try {
            if (run.isDone()) {
                acquisition.abandon(); // cancelled between two rounds
                return;
            }
            if (acquisition.pass()) {
                run.finish(() -> Optional.of(acquisition.lease()));
                return;
            }
            LockSpec turn = acquisition.nextTurn();
            if (turn == null) {
                run.finish(acquisition::ranOut);
                return;
            }
            run.ask(client.tryAcquireAsync(turn), (granted, failure) -> {
                if (failure != null) {
                    run.fail(acquisition.failed(failure));
                    return;
                }
                granted.ifPresent(acquisition::took);
                round(run, acquisition);
            });
        } catch (RuntimeException | Error failure) {
            run.fail(acquisition.failed(failure));
        }
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

    @Override
    public String toString() {
        return "LockSemaphore[name=" + name + ", permits=" + permits + ", backend=" + client.backendName() + "]";
    }
}
