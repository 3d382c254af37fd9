package dev.mortise.lock;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * A granted hold on one lock key, open until {@link #close() closed}.
 *
 * <p>Thread-safe. A lease may be closed on any thread (a {@code CompletableFuture} or a
 * {@code Mono} finishing elsewhere); closing twice is a no-op. A nested lease (the same
 * owner acquiring a key it already holds) shares the hold and the fencing token of the
 * outer one; the server hold ends when the last open lease on it closes.
 */
public interface LockLease extends AutoCloseable {

    /** The key as the caller gave it. */
    String key();

    /** The backend that granted the hold. */
    String backend();

    /**
     * The fencing token of this grant: for one key, strictly greater than the token of
     * every earlier grant, on any client, for as long as the backend keeps its durable
     * state. Pass it with every write the lock protects and have the storage refuse a
     * write carrying a lower token than it has seen.
     */
    long fencingToken();

    /** How many open leases share this hold (1 for an outermost lease with no nesting). */
    int holdCount();

    /**
     * Whether the hold is still ours as far as this client can tell: not closed, not lost,
     * and before its local validity deadline (start of the granting request + lease −
     * drift). Turns false at that instant even if the server has said nothing yet.
     */
    boolean isValid();

    /** Time left before the local validity deadline; {@link Duration#ZERO} once invalid. */
    Duration remaining();

    /**
     * Throws {@link LockLostException} if the lease is no longer valid. Call it before an
     * irreversible step.
     *
     * @throws LockLostException if the hold expired, was lost, or the lease is closed
     */
    void ensureValid();

    /**
     * Sets the hold's lease to {@code lease} from now, on the server and locally: what a
     * lock service does when its remote client renews. Meant for explicit leases (those
     * are not renewed in the background); on a renewed hold the watchdog goes on renewing
     * with the client's default lease afterwards.
     *
     * @throws IllegalArgumentException if {@code lease} is not positive
     * @throws LockLostException       if the hold is closed, expired or no longer ours on the server
     * @throws LockBackendException    if the server could not be reached (the lease is unchanged)
     */
    void extend(java.time.Duration lease);

    /**
     * Registers a listener called once if the hold is lost while open. Called at once,
     * on this thread, if it is already lost. A loss found by the watchdog or reported by
     * the backend (session ended) is told on the client's background thread; the lease is
     * invalid before the listener runs. A listener that throws is logged and does not
     * disturb the lock or other listeners.
     *
     * @return this lease
     */
    LockLease onLost(Consumer<LockLostEvent> listener);

    /**
     * Ends this lease. The last open lease on a hold releases it on the server (an
     * owner-checked delete: never someone else's hold).
     *
     * @throws LockLostException    if the hold was lost while this lease was open
     * @throws LockBackendException if the release could not reach the server (the hold
     *                              then ends when its lease runs out)
     */
    @Override
    void close();
}
