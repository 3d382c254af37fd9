package dev.mortise.lock;

import java.time.Duration;
import java.util.Optional;

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
 * <p><b>How it is built (all backends, for now).</b> Permit {@code i} (0 ≤ i &lt; permits) is the
 * ordinary exclusive lock key {@code name + "#permit-" + i}, a <em>slot</em>; holding a permit is
 * holding one slot. So a permit lease has everything a {@link LockLease} has: validity, watchdog
 * renewal (or an explicit lease that simply expires), {@code onLost}, and a fencing token, and a
 * holder that dies frees its slots when their leases end (ZooKeeper: when its session ends). The
 * name's keys are these slots: do not lock {@code name + "#permit-" + i} for anything else.
 *
 * <ul>
 *   <li><b>Permit count.</b> The count is not stored on the server: it is the number of slots a
 *       client tries, so every client of one semaphore must use the same count. A client with a
 *       different count is not detected. Changing it is defined by the slot model: raising it
 *       takes effect at once (clients with the new count try the new slots); lowering it lets
 *       current holders finish (slots at or above the new count are not handed out again by
 *       clients with the new count, and their holders keep them until they close). While clients
 *       with different counts run side by side, the bound is the largest count in use.</li>
 *   <li><b>n permits.</b> {@code acquire(n, ...)} takes n distinct slots, all or nothing: on a
 *       timeout, an interrupt or a failure, the slots taken are released before it returns or
 *       throws. It never holds slots while it blocks (it blocks with none held and then tries the
 *       rest without waiting), so callers asking for several permits cannot deadlock each other.
 *       {@code n} must be between 1 and {@link #permits()}.</li>
 *   <li><b>Fencing tokens are per slot</b>: each permit's token comes from its slot key's
 *       counter, strictly increasing for that slot, not from one counter for the name. A storage
 *       that fences writes of permit holders keeps the highest token seen per slot
 *       ({@link PermitLease#slots()} says which).</li>
 *   <li><b>Not reentrant.</b> Each acquisition has an owner of its own, so a thread that already
 *       holds a permit and acquires again takes another permit (or waits for one); permits never
 *       nest. A thread may hold several permits.</li>
 *   <li><b>Not fair.</b> A waiter tries every slot, then blocks on one slot (chosen in turn) for a
 *       short while, with the backend's own wake-up for that slot where it pushes one, and tries
 *       every slot again; a waiter may be overtaken by later ones, and one asking for many permits
 *       by ones asking for few. Each try costs one server request per slot tried: this generic
 *       path is not native to any backend yet.</li>
 * </ul>
 *
 * <p>Explicit leases: the {@code lease} overloads take an explicit lease for every permit of the
 * acquisition, not renewed, as {@link LockSpec#lease}; the others use the client's default lease,
 * renewed in the background until the permit lease is closed.
 *
 * <p>Thread-safe, and cheap: holds no state but its name and count, so it may be created per call.
 * Arguments are validated as the client validates keys and durations
 * ({@link IllegalArgumentException}); waiting honours interrupts ({@link LockInterruptedException}).
 */
public interface LockSemaphore {

    /** The semaphore's name, as given to {@link LockClient#semaphore}. */
    String name();

    /** The permit count this handle uses (the number of slots it tries). */
    int permits();

    /** The lock key of slot {@code slot}: {@code name() + "#permit-" + slot}. */
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
     * Tries every slot once for one permit, never waits.
     *
     * @return the permit, or empty if every slot was held
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
}
