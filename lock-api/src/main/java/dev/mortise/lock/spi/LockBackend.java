package dev.mortise.lock.spi;

import dev.mortise.lock.LockMode;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * What a backend implements: single attempts, a native wait, renewal and release of
 * one server-side hold. Everything else in the contract (reentrancy, the watchdog,
 * local validity, local queueing, listeners, argument checks) lives in the core.
 *
 * <p>Implementations are thread-safe and hold no per-lock state that the core needs:
 * whatever they need to renew or release a hold travels in its {@link Grant}. Owner
 * strings are unique per hold; every write a backend makes is checked against it.
 * Failures to reach or use the server are thrown as unchecked exceptions (preferably
 * {@link dev.mortise.lock.LockBackendException}) within the backend's operation timeout,
 * never as a hang; the core wraps anything else.
 */
public interface LockBackend extends AutoCloseable {

    /** Short lowercase name: {@code "redis"}, {@code "etcd"}, {@code "zookeeper"}, {@code "jdbc"}, {@code "local"}. */
    String name();

    /**
     * What this backend guarantees, for docs, health and the contract suite; the core reads its
     * {@link BackendGuarantees#minimumLease() minimumLease} as the shortest lease it may ask for.
     */
    BackendGuarantees guarantees();

    /**
     * Whether this backend grants {@link dev.mortise.lock.LockMode#SHARED} requests. The core
     * refuses shared locks on a backend that returns false (the default), naming it. A backend
     * that returns true honours, for every request, renewal and release:
     * <ul>
     *   <li>a shared hold of a key coexists with other shared holds of it and with no
     *       exclusive one; an exclusive hold excludes every other hold;</li>
     *   <li>no writer starvation: while an exclusive request of the key waits (in
     *       {@link #acquire}), a new shared request is not granted before it — in arrival
     *       order where the server orders waiters, otherwise by a marker the waiting writer
     *       leaves that expires with its wait;</li>
     *   <li>every grant, shared or exclusive, takes a fencing token from the key's one
     *       counter (strictly increasing over all grants of the key);</li>
     *   <li>{@link #renewAll} renews shared and exclusive holds together; a crashed reader's
     *       share ends with its lease (or session), as an exclusive hold does;</li>
     *   <li>nothing a timed-out or interrupted request created remains on the server, and a
     *       reader leaving wakes the waiting writer.</li>
     * </ul>
     * The mode of a hold travels in its {@link Grant#state()}; the core asks
     * {@link #renew}, {@link #linger} and {@link #release} for shared holds exactly as for
     * exclusive ones.
     */
    default boolean supportsSharedMode() {
        return false;
    }

    /**
     * Whether this backend keeps semaphores natively: grants {@link LockRequest#takesPermits() permit
     * requests} and implements {@link #setPermits}. With false (the default)
     * {@link dev.mortise.lock.LockClient#semaphore} builds a semaphore from exclusive locks, one key per
     * permit (the slot fallback). A backend that returns true honours, for every request, renewal and
     * release of a permit hold:
     * <ul>
     *   <li>a permit request ({@link LockMode SHARED} mode, {@link Permits#count() count} n, {@link
     *       Permits#limit() limit} L) of a key is one hold with its own owner, granted when the counts
     *       of the key's live permit holds plus n are at most the key's stored count; it is never
     *       granted while a non-permit hold (exclusive, or shared without permits) has the key;</li>
     *   <li>the count is stored on the server with the holds: a request that finds no live permit
     *       hold stores its L; a request that finds holds under another count is refused, when it
     *       arrives, with {@link dev.mortise.lock.PermitCountMismatchException} (nothing is left on the
     *       server); a request already waiting follows the stored count, so {@link #setPermits} wakes
     *       it;</li>
     *   <li>every grant takes a fencing token from the key's one counter (strictly increasing over
     *       all its grants, whatever their counts);</li>
     *   <li>{@link #renew}, {@link #renewAll}, {@link #linger}, {@link #release} and {@link #inspect}
     *       treat a permit hold exactly as a shared hold (inspection shows the key {@code SHARED}, one
     *       holder per acquisition); a dead holder's permits end with its lease (or session);</li>
     *   <li>a release wakes waiters that now fit; the backend documents whether waiters are served in
     *       arrival order (a waiter for many is then not overtaken by later ones for few) and, as for
     *       any wait, nothing a timed-out or interrupted request created remains on the server.</li>
     * </ul>
     */
    default boolean supportsPermits() {
        return false;
    }

    /**
     * Changes the stored permit count of the semaphore key {@code key} (as in {@link LockRequest#key()})
     * to {@code limit}, if permit holds exist (with none, nothing is stored and the next request's
     * count applies). Raising it wakes waiters that now fit; lowering it lets current holders keep
     * their permits until they release, and grants nothing until the holds fit under it. Called only
     * on a backend whose {@link #supportsPermits()} is true; the default throws
     * {@link UnsupportedOperationException}.
     *
     * @throws dev.mortise.lock.LockBackendException if the server cannot be reached within the
     *                                               operation timeout
     */
    default void setPermits(String key, int limit) {
        throw new UnsupportedOperationException("backend '" + name() + "' keeps no native semaphores: "
                + getClass().getName() + " does not implement LockBackend.setPermits(String, int)");
    }

    /**
     * One attempt that never waits for the lock (it may wait for the network, up to the
     * operation timeout). Takes the key if it is free or already held by
     * {@code request.owner()}; a shared request also if only shared holds have it (and no
     * exclusive request waits, where the backend can tell).
     *
     * @return granted with a new fencing token, or busy with the holder's remaining lease if known
     */
    Attempt tryAcquire(LockRequest request);

    /**
     * One attempt at several keys together, all or nothing, in as few round trips as the server
     * allows (one Lua script per Redis slot, one SQL statement, one transaction): behind
     * {@link dev.mortise.lock.LockClient#acquireAll} when every part is free in the client. Never
     * waits for a lock (it may wait for the network, up to the operation timeout). The requests
     * have distinct keys, in the canonical order of {@link dev.mortise.lock.MultiLockSpec#parts()},
     * fresh owners, one lease and one {@code renewed} flag; their modes may differ.
     *
     * <ul>
     *   <li>Every key free (as {@link #tryAcquire} would find it): returns one grant per request,
     *       in request order, each with its own fencing token and a {@link Grant#requestedAtNanos()}
     *       taken before the request that granted it was sent.</li>
     *   <li>Any key busy: returns an empty list, and nothing of this call is left on the server
     *       (grants of other keys made on the way were released before returning).</li>
     *   <li>The server could not be reached or did not answer: throws, after cleaning up whatever
     *       the call may have taken, as {@link #tryAcquire} cleans up after an attempt whose answer
     *       did not come.</li>
     *   <li>The backend cannot take these requests together (no native batch, or not for this mix
     *       of modes): returns {@code null} without touching the server, and the core takes the keys
     *       one by one. That is the default.</li>
     * </ul>
     *
     * @return the grants in request order, an empty list if a key was busy, or {@code null} for
     *         "no native batch"
     */
    default List<Grant> tryAcquireAll(List<LockRequest> requests) {
        return null;
    }

    /**
     * Acquires, waiting up to {@code wait}. Backends that can be woken by the server
     * (pub/sub, watches, LISTEN/NOTIFY) override this; the default polls
     * {@link #tryAcquire} with exponential backoff and jitter, each sleep bounded by the
     * holder's remaining lease. On timeout or interruption, nothing this call created may
     * remain on the server.
     *
     * @return the grant, or empty when {@code wait} ran out
     * @throws InterruptedException if interrupted while waiting (after cleaning up)
     */
    default Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        return BackoffPolling.acquire(this, request, wait);
    }

    /**
     * Acquires without holding a thread while the request waits: the asynchronous form of
     * {@link #acquire}, behind {@link dev.mortise.lock.LockClient#acquireAsync}. The answer is
     * completed with the grant, with empty when {@code wait} ran out (a zero wait is one attempt),
     * or exceptionally as {@link #acquire} throws; on any thread but the caller's (the core moves on
     * to its own executor whichever thread completes it).
     *
     * <p>An override honours what {@link #acquire} honours, and:
     * <ul>
     *   <li>when the answer is completed by anyone else (the core cancels it when its caller cancels,
     *       its wait runs out in the client, or the client closes), the wait stops and nothing this
     *       request created remains on the server; a grant that arrives after that is released, never
     *       left to expire;</li>
     *   <li>the grant's {@link Grant#requestedAtNanos()} is taken before the request that granted it
     *       was sent (not when the wait began);</li>
     *   <li>on a backend whose {@link #supportsSharedMode()} is true, a waiting exclusive request holds
     *       new shared requests back exactly as in {@link #acquire} (no writer starvation).</li>
     * </ul>
     *
     * <p>The default parks no thread per waiter on a backend without shared mode: it polls
     * {@link #tryAcquire} as {@link BackoffPolling} does (the same backoff, each sleep bounded by the
     * holder's remaining lease), each attempt on the shared bounded {@link AsyncWaits#executor()},
     * the sleeps on its {@link AsyncWaits#scheduler()}. Polling cannot leave the writer's marker that
     * the shared-mode rule needs, so on a backend whose {@link #supportsSharedMode()} is true the
     * default runs this backend's blocking {@link #acquire} on a shared pool instead, one thread per
     * server wait under way (never queued behind other waits, which would let a free key time out
     * behind busy ones): such a backend overrides this method to wait without a thread.
     *
     * <p>A backend whose server can wake it writes its wait once, as {@link WaitSteps}, and runs it
     * with {@link WaitDriver#await} here in {@link #acquire} and with {@link WaitDriver#start} in this
     * method: one protocol loop, two ways to run it, and no thread held while a request sleeps.
     *
     * @return the grant, or empty when {@code wait} ran out
     */
    default java.util.concurrent.CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        return supportsSharedMode() ? BlockingAsyncWait.start(this, request, wait)
                : AsyncPolling.start(this, request, wait);
    }

    /**
     * Extends the hold to {@code lease} from now, if it is still {@code grant.owner()}'s, and says
     * what the server put in force. Most servers apply the lease they are sent; a server that keeps
     * its own TTL (an etcd lease keeps the TTL it was granted with, whatever a keep-alive asks for)
     * answers that TTL. The core counts local validity from the answer, never from the caller's
     * wish, and refuses an {@code extend} the server did not apply.
     *
     * @return the lease now in force (positive), counted from the send of this renewal; empty if
     *         the hold is gone (expired, deleted, taken by another owner)
     */
    Optional<Duration> renew(Grant grant, Duration lease);

    /**
     * The ticker this backend stamps {@link Grant#requestedAtNanos()} with and, where it keeps
     * leases itself, judges them by. Servers across a network keep real time: the default,
     * {@link Ticker#system()}. The in-process backend returns its server's ticker, which a test
     * may move by hand. A backend that wraps another returns the wrapped one's. The client
     * measures lease time on this ticker and refuses a different one at build.
     */
    default Ticker ticker() {
        return Ticker.system();
    }

    /**
     * How long a hold granted or renewed with {@code lease} may be counted on locally, from
     * the moment the request that proved it was sent (the core then also subtracts its clock
     * drift allowance). The default is the lease itself. A backend whose holds can end sooner
     * than the lease returns less: a ZooKeeper session, for one, may be expired by the
     * ensemble about its session timeout after the server last heard of it, whatever lease
     * the caller asked for, so that backend bounds validity by the session timeout as the
     * ZooKeeper client itself does. A renewed hold is valid for this long after each grant or
     * renewal, and the watchdog renews at a third of it; an explicit lease keeps its full length
     * (the backend's own events end it sooner), but a grant that arrives after this validity
     * has passed is given up as too late. Must be quick (called per acquire and renewal),
     * positive, and at most {@code lease}. It is the backend's, not an answer's: the core also
     * asks it before any request (the watchdog's period, a request whose answer is pending).
     */
    default Duration validity(Duration lease) {
        return lease;
    }

    /**
     * Renews many holds, ideally in one round trip per server node; the watchdog calls it
     * once per tick with every hold it renews. The default renews one by one.
     *
     * @return the holds that are gone, and the lease in force for each renewed one (as
     *         {@link #renew} answers it)
     * @throws RuntimeException if the round trip failed; the core then retries later and
     *                          lets leases expire locally, without treating them as gone
     */
    default Renewals renewAll(Collection<Grant> grants, Duration lease) {
        java.util.Set<Grant> gone = new java.util.HashSet<>();
        java.util.Map<Grant, Duration> applied = new java.util.HashMap<>();
        for (Grant grant : grants) {
            Optional<Duration> renewed = renew(grant, lease);
            if (renewed.isPresent()) {
                applied.put(grant, renewed.get());
            } else {
                gone.add(grant);
            }
        }
        return Renewals.of(gone, applied);
    }

    /**
     * Instead of releasing: leaves the hold on the server to expire {@code linger} from now,
     * if it is still {@code grant.owner()}'s. The core never renews it again. For
     * "hold at least" schedules ({@link dev.mortise.lock.LockLease#closeLingering}). The default
     * is {@link #renew}, right for servers that expire what they are told; a backend whose
     * renewal does not end a hold on its own (a session kept alive, an ephemeral node)
     * overrides it so the hold does end after {@code linger}.
     *
     * @return false if the hold is gone
     */
    default boolean linger(Grant grant, Duration linger) {
        return renew(grant, linger).isPresent();
    }

    /**
     * Releases the hold if it is still {@code grant.owner()}'s, and wakes waiters.
     * Idempotent; never touches another owner's hold.
     *
     * @return true if the hold was still ours and is now released; false if the server
     *         no longer had it (expired, deleted, taken), which the core reports as a loss
     */
    boolean release(Grant grant);

    /**
     * Reads what the server records about {@code key} (the user's key, checked by the core and
     * unencoded, as in {@link LockRequest#key()}; the backend encodes it as it does for a
     * request): its holds, their owners, tokens and remaining leases, and the waiters where the
     * server knows them. Read-only: it takes nothing, renews nothing, wakes no
     * one and leaves nothing on the server. Expired holds the server still stores but no longer
     * honours are not reported. Behind {@link dev.mortise.lock.LockClient#inspect(String)}.
     *
     * <p>The default throws {@link UnsupportedOperationException}; every bundled backend
     * overrides it.
     *
     * @throws dev.mortise.lock.LockBackendException if the server cannot be read within the
     *                                               operation timeout
     */
    default KeyState inspect(String key) {
        throw new UnsupportedOperationException("backend '" + name() + "' cannot inspect keys: "
                + getClass().getName() + " does not implement LockBackend.inspect(String)");
    }

    /**
     * Where this backend keeps the wait records of deadlock detection, if it keeps them: see
     * {@link WaitRecords}. Every bundled backend does. Empty (the default) turns detection off for
     * clients of this backend: their waits end only by their wait time, as before, and the
     * client's documentation says so.
     */
    default java.util.Optional<WaitRecords> waitRecords() {
        return java.util.Optional.empty();
    }

    /**
     * Subscribes the core to holds the backend learns are suspended, restored or lost
     * without being asked (a ZooKeeper session, an etcd keep-alive). Backends with no
     * such knowledge keep the default, which ignores the listener.
     */
    default void addGrantListener(GrantListener listener) {
    }

    /**
     * One cheap round trip to the server (Redis PING, a ZooKeeper exists, {@code SELECT 1}),
     * for health checks. Takes no lock and leaves nothing behind.
     *
     * @throws dev.mortise.lock.LockBackendException if the server cannot be reached within
     *                                               the operation timeout
     */
    void ping();

    /** Closes connections the backend created itself. Idempotent. */
    @Override
    void close();
}
