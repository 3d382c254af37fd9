package dev.mortise.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A counting semaphore over a lock backend: at most {@link #permits()} permits of the semaphore
 * {@link #name()} are held, as valid leases, at any instant, across every client of the backend.
 * Get one with {@link LockClient#semaphore(String, int)}:
 *
 * <pre>{@code
 * LockSemaphore exports = locks.semaphore("exports", 4);   // at most 4 exports at once, cluster-wide
 * try (PermitLease permit = exports.acquire(Duration.ofSeconds(10))) {
 *     export(job, permit.fencingTokens().get(0));
 * }
 * }</pre>
 *
 * <p>Every permit lease has what a {@link LockLease} has: validity, watchdog renewal (or an explicit
 * lease that simply expires), {@code onLost}, a fencing token; a holder that dies frees its permits
 * when its lease ends (ZooKeeper: when its session ends). <b>Not reentrant</b>: each acquisition has
 * an owner of its own, so a thread that holds a permit and acquires again takes another permit (or
 * waits for one); permits never nest. {@code acquire(n, ...)} takes n permits all or nothing, and
 * {@code n} must be between 1 and {@link #permits()}. How a semaphore is kept depends on the backend
 * ({@link #isNative()}):
 *
 * <h2>Native ({@code isNative()} true: in-process, Redis single node / Cluster / Sentinel, etcd, ZooKeeper)</h2>
 * The backend keeps the semaphore on its server ({@link dev.mortise.lock.spi.LockBackend#supportsPermits()}):
 * <ul>
 *   <li><b>One key, one request.</b> An acquisition of n permits is one hold of the key
 *       {@link #permitsKey()} ({@code name + "#permits"}) that carries n: one request to take it (which
 *       waits on the server's wake-up, no polling), one to release it, and the watchdog renews it
 *       with the client's other holds. Do not lock that key for anything else.</li>
 *   <li><b>One fencing counter per name</b>: every acquisition's token comes from the key's one
 *       counter, strictly increasing over all acquisitions of the semaphore, whatever their counts
 *       ({@link PermitLease#fencingTokens()} has that one token).</li>
 *   <li><b>The count is stored on the server</b> with the holds. The first acquisition of an idle
 *       semaphore stores its count; while any permit is held, an acquisition with another count is
 *       refused with {@link PermitCountMismatchException} (naming both counts), so two deployments
 *       that disagree are caught instead of exceeding the smaller bound. {@link #setPermits} changes
 *       it: a raise takes effect at once and wakes the waiters that now fit (a request already
 *       waiting follows the stored count); a lower count lets current holders keep their permits
 *       until they release and grants nothing until the holds fit under it. Other clients' handles
 *       then need the new count too (or they are refused while permits are held).</li>
 *   <li><b>Fairness</b> as the backend declares it: the in-process backend, etcd (create revision)
 *       and ZooKeeper (node sequence) serve waiters in arrival order (a waiter for many permits is
 *       not overtaken by later ones for few, not even by a {@code tryAcquire}); Redis wakes every
 *       waiter on a release and the first to ask again wins (not fair; see docs/redis.md).</li>
 * </ul>
 *
 * <h2>Slot fallback ({@code isNative()} false: JDBC, Redis fair mode, Redlock, a migration)</h2>
 * Permit {@code i} (0 ≤ i &lt; permits) is the ordinary exclusive lock key {@code name + "#permit-" + i},
 * a <em>slot</em>; holding a permit is holding one slot. Do not lock those keys for anything else.
 * <ul>
 *   <li><b>Permit count.</b> Not stored on the server: it is the number of slots a client tries, so
 *       every client of one semaphore must use the same count; a client with a different count is
 *       not detected. {@link #setPermits} changes this handle's count only: raising it takes effect
 *       at once (the new slots are tried), lowering it lets current holders finish (slots at or above
 *       the new count are no longer handed out by this handle). While clients with different counts
 *       run side by side, the bound is the largest count in use.</li>
 *   <li><b>n permits</b> are n distinct slots: on a timeout, an interrupt or a failure the slots
 *       taken are released before it returns or throws; it never holds slots while it blocks, so
 *       callers asking for several permits cannot deadlock each other.</li>
 *   <li><b>Fencing tokens are per slot</b>: each permit's token comes from its slot key's counter,
 *       strictly increasing for that slot, not comparable across slots
 *       ({@link PermitLease#slots()} says which).</li>
 *   <li><b>Not fair.</b> A waiter tries every slot, then blocks on one slot (chosen in turn) for a
 *       short while, with the backend's own wake-up for that slot, and tries every slot again; a
 *       waiter may be overtaken by later ones, and one asking for many permits by ones asking for few.
 *       Each try costs one server request per slot tried.</li>
 * </ul>
 *
 * <p>Explicit leases: the {@code lease} overloads take an explicit lease for the acquisition, not
 * renewed, as {@link LockSpec#lease}; the others use the client's default lease, renewed in the
 * background until the permit lease is closed.
 *
 * <p>Thread-safe, and cheap: holds no state but its name, count and client, so it may be created
 * per call (with the same count). Arguments are validated as the client validates keys and durations
 * ({@link IllegalArgumentException}); waiting honours interrupts ({@link LockInterruptedException}).
 */
public interface LockSemaphore {

    /** The semaphore's name, as given to {@link LockClient#semaphore}. */
    String name();

    /** The permit count this handle uses (native: the count it asks the server for; slots: the number it tries). */
    int permits();

    /**
     * Whether the backend keeps this semaphore natively (one key, one hold per acquisition, the count
     * stored on the server, one fencing counter) rather than as one lock key per permit. See above.
     */
    boolean isNative();

    /**
     * Changes the permit count to {@code permits}. Native: on the server, for every client (a raise
     * wakes the waiters that now fit; a lower count lets current holders finish), and for this handle;
     * clients holding other handles must use the new count too. Slot fallback: for this handle only.
     *
     * @throws IllegalArgumentException if {@code permits} is not positive
     * @throws LockBackendException     if the server could not be told (the count is then unchanged)
     */
    void setPermits(int permits);

    /** The one lock key of a native semaphore: {@code name() + "#permits"}. */
    default String permitsKey() {
        return name() + "#permits";
    }

    /** The lock key of slot {@code slot} in the slot fallback: {@code name() + "#permit-" + slot}. */
    default String slotKey(int slot) {
        return name() + "#permit-" + slot;
    }

    /**
     * Acquires one permit, waiting up to {@code wait}.
     *
     * @throws LockTimeoutException     if no permit was free within {@code wait}
     * @throws LockInterruptedException if interrupted while waiting (nothing is held)
     * @throws LockBackendException     if the backend failed (nothing is held)
     */
    default PermitLease acquire(Duration wait) {
        return acquire(1, wait);
    }

    /**
     * Acquires {@code n} permits together, all or nothing, waiting up to {@code wait}.
     *
     * @throws LockTimeoutException     if n permits were not free together within {@code wait} (none is held)
     * @throws LockInterruptedException if interrupted while waiting (none is held)
     * @throws IllegalArgumentException if {@code n} is not between 1 and {@link #permits()}
     */
    PermitLease acquire(int n, Duration wait);

    /** As {@link #acquire(int, Duration)}, every permit with the explicit, not renewed, {@code lease}. */
    PermitLease acquire(int n, Duration wait, Duration lease);

    /**
     * Tries once for one permit, never waits.
     *
     * @return the permit, or empty if none was free
     */
    default Optional<PermitLease> tryAcquire() {
        return tryAcquire(1, Duration.ZERO);
    }

    /**
     * Tries for up to {@code wait} to take {@code n} permits together, all or nothing.
     *
     * @return the permits, or empty if n were not free together within {@code wait} (none is held)
     * @throws LockInterruptedException if interrupted while waiting (none is held)
     */
    Optional<PermitLease> tryAcquire(int n, Duration wait);

    /** As {@link #tryAcquire(int, Duration)}, every permit with the explicit, not renewed, {@code lease}. */
    Optional<PermitLease> tryAcquire(int n, Duration wait, Duration lease);

    /**
     * {@link #acquire(int, Duration)} without a thread waiting, on the client's asynchronous path
     * ({@link LockClient#acquireAsync}): n permits all or nothing, as the blocking form takes them
     * (native: one request whose server wait holds no thread here; slots: the same passes, each
     * turn's wait on one slot through {@code tryAcquireAsync}). The future completes with the permit
     * lease, or exceptionally with what {@code acquire} throws ({@link LockTimeoutException} when n
     * permits were not free together in time, {@link IllegalArgumentException} for a bad argument,
     * never thrown by this method itself); never on the calling thread, but on
     * {@link dev.mortise.lock.spi.AsyncWaits#executor()}, so dependent stages must not block.
     * Cancelling it withdraws the request exactly once and releases what it held; a grant that races
     * the cancel is released, never leaked. The client closing fails it.
     *
     * @return the permit lease, or a future completed exceptionally as described
     */
    CompletableFuture<PermitLease> acquireAsync(int n, Duration wait);

    /** As {@link #acquireAsync(int, Duration)}, every permit with the explicit, not renewed, {@code lease}. */
    CompletableFuture<PermitLease> acquireAsync(int n, Duration wait, Duration lease);

    /**
     * As {@link #acquireAsync(int, Duration)}, but n permits not free together in time complete the
     * future with empty (none is held) instead of {@link LockTimeoutException}.
     */
    CompletableFuture<Optional<PermitLease>> tryAcquireAsync(int n, Duration wait);

    /** As {@link #tryAcquireAsync(int, Duration)}, every permit with the explicit, not renewed, {@code lease}. */
    CompletableFuture<Optional<PermitLease>> tryAcquireAsync(int n, Duration wait, Duration lease);
}
