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

    /**
     * The mode of the hold this lease is on: {@link LockMode#SHARED} while other shared holds of
     * the key may be valid at the same time, {@link LockMode#EXCLUSIVE} while no other hold of the
     * key is. A shared request nested in its owner's exclusive hold (a read inside a write) is on
     * that exclusive hold, and says so. Implementations other than the core's default to
     * exclusive.
     */
    default LockMode mode() {
        return LockMode.EXCLUSIVE;
    }

    /**
     * The opaque id of the hold this lease is on, as {@link LockClient#inspect(String)} shows its
     * holders ({@link LockInspection.Holder#holderId()}): a stable digest of the owner string the
     * server stores with the hold, so a caller can tell "that holder is me" without the owner
     * string itself, which is a release credential and never shown. Nested leases share their
     * hold's id; every hold has its own (even two holds of one thread, one after the other).
     * Implementations other than the core's throw {@link UnsupportedOperationException}.
     */
    default String holderId() {
        throw new UnsupportedOperationException("holderId() is not implemented by " + getClass().getName()
                + " (lock '" + key() + "', backend '" + backend() + "')");
    }

    /** How many open leases share this hold (1 for an outermost lease with no nesting). */
    int holdCount();

    /**
     * Whether the hold is still ours as far as this client can tell: not closed, not lost,
     * not suspended, and before its local validity deadline. The deadline comes only from the
     * last request the server confirmed (the grant, a watchdog renewal, an {@code extend}):
     * that request's start + the lesser of the lease it asked for, the lease the server says
     * it applied and what the backend says a confirmation is worth
     * ({@link dev.mortise.lock.spi.LockBackend#validity}) − the clock-drift allowance. Turns
     * false at that instant even if the server has said nothing yet, and {@link #onLost}
     * fires then.
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
     * Sets the hold's lease to {@code lease} from now, on the server and then locally: what
     * a lock service does when its remote client renews. Longer or shorter than before both
     * work. Local validity becomes what the server's confirmation is worth (see
     * {@link #isValid()}), never more. On a renewed hold the watchdog goes on renewing with
     * {@code lease} from then on. Waits for a watchdog renewal of this hold that is under way.
     *
     * <p>A lease shorter than this client can ask of the backend (below the backend's
     * {@code guarantees().minimumLease()}, etcd's second, or so short that the drift allowance would eat it)
     * is "hold it until {@code lease} from now": the server is asked for the shortest lease it
     * honours, the hold is no longer renewed, it is valid until then, and when that instant
     * passes it ends as any lease left to run out does ({@code onLost} with {@code EXPIRED},
     * and the client deletes it on the server so the key is free at once). A longer
     * {@code extend} before then cancels that end.
     *
     * @throws IllegalArgumentException if {@code lease} is not positive
     * @throws LockLostException       if the hold is closed, expired or no longer ours on the server
     * @throws LockBackendException    if the server could not be reached (the server may or may
     *                                 not have applied it, so validity is the lesser of the old and
     *                                 the new deadline), or if the server applied a shorter lease
     *                                 than asked (an etcd lease keeps its TTL): validity then
     *                                 follows what the server applied
     */
    void extend(java.time.Duration lease);

    /**
     * Registers a listener called once if the hold is lost while open. Called at once,
     * on this thread, if it is already lost. A loss found by the client in the background
     * (expiry, a refused renewal) or reported by the backend (session ended) is told at once on
     * a pooled thread of the client's own ({@code mortise-onlost-<backend>-N}), never on the
     * watchdog's, and no slow listener delays it; a loss found by a caller's own
     * call (close, {@code ensureValid}, {@code forceRelease}, closing the client) is told on
     * that caller's thread. The lease is invalid before the listener runs. A listener that
     * throws is logged and does not disturb the lock or other listeners.
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

    /**
     * Ends this lease as {@link #close()} does, except that if it is the last open lease on
     * the hold, the hold is not deleted: it is left on the server to expire {@code linger}
     * from now (its server lease is set to {@code linger}, and the client stops renewing it).
     * No other owner can take the key before then; this client's other callers ask the
     * server like anyone else. For "hold at least" schedules (ShedLock's
     * {@code lockAtLeastFor}) that must survive the process stopping. A zero or negative
     * {@code linger} is a plain {@link #close()}. Where a backend ties holds to a session
     * that ends with the client (ZooKeeper), it leaves something on the server that outlives
     * the session (see the backend's documentation). An outer lease that is still open makes this a plain close of this lease.
     *
     * @throws LockLostException    if the hold was lost while this lease was open
     * @throws LockBackendException if the server could not be told (the hold then ends when
     *                              its current lease runs out)
     */
    void closeLingering(Duration linger);
}
