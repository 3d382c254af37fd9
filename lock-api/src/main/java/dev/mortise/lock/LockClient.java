package dev.mortise.lock;

import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.LockBackend;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * The entry point: acquires distributed locks on one backend.
 *
 * <pre>{@code
 * LockClient locks = LockClient.builder(backend).defaultLease(Duration.ofSeconds(30)).build();
 * try (LockLease lease = locks.acquire("order:42", Duration.ofSeconds(5))) {
 *     storage.write(order, lease.fencingToken());
 * }
 * }</pre>
 *
 * <p>One per application and backend; thread-safe. The same owner (by default the
 * calling thread, see {@link LockSpec#owner}) acquiring a key it holds gets a nested
 * lease at once, without a server round trip. Holds are exclusive unless asked for
 * {@linkplain LockSpec#shared() shared}: shared holds of a key coexist (each caller with its
 * own hold and token), an exclusive one excludes all; a shared request inside the owner's
 * exclusive hold nests in it, an exclusive request inside the owner's shared hold (an
 * upgrade) throws {@link IllegalStateException}, and once an exclusive request waits new
 * shared ones queue behind it. Leases without an explicit lease time are
 * renewed in the background until closed. Threads of this client contending for one key
 * queue locally, so only one of them talks to the server.
 *
 * <p>Every method rejects a {@code null}, blank or over-long key (see
 * {@link LockClientBuilder#maxKeyBytes}) and negative or {@code null} durations with
 * {@link IllegalArgumentException}; leases must be positive. Waiting honours
 * {@link Thread#interrupt()}: an interrupted wait throws {@link LockInterruptedException}
 * with the interrupt flag set again.
 */
public interface LockClient extends AutoCloseable {

    /** Starts building a client over {@code backend}. The client owns it and closes it. */
    static LockClientBuilder builder(LockBackend backend) {
        return new LockClientBuilder(backend);
    }

    /**
     * Acquires {@code key}, waiting up to {@code wait}. A grant whose answer arrives after its
     * lease ran out (a round trip slower than the lease) is released and asked for again while
     * {@code wait} lasts; {@link #tryAcquire(String)} has no second try and throws.
     *
     * @throws LockTimeoutException     if not granted within {@code wait}
     * @throws LockInterruptedException if interrupted while waiting
     * @throws LockBackendException     if the backend failed, or the last grant came back after its lease
     */
    LockLease acquire(String key, Duration wait);

    /**
     * Acquires as {@code spec} says, waiting up to its {@link LockSpec#waitFor wait}.
     *
     * @throws LockTimeoutException     if not granted in time
     * @throws LockInterruptedException if interrupted while waiting
     * @throws LockBackendException     if the backend failed
     */
    LockLease acquire(LockSpec spec);

    /**
     * Tries once, never waits.
     *
     * @return the lease, or empty if the lock is held by another owner
     * @throws LockBackendException if the backend failed, or the grant came back after its lease ran out
     *                              (it has been released)
     */
    Optional<LockLease> tryAcquire(String key);

    /**
     * Tries for up to {@code wait}.
     *
     * @return the lease, or empty if not granted within {@code wait}
     * @throws LockInterruptedException if interrupted while waiting
     * @throws LockBackendException     if the backend failed
     */
    Optional<LockLease> tryAcquire(String key, Duration wait);

    /**
     * Tries as {@code spec} says.
     *
     * @return the lease, or empty if not granted within the spec's wait
     */
    Optional<LockLease> tryAcquire(LockSpec spec);

    /**
     * Acquires as {@code spec} says (exclusive or {@linkplain LockSpec#shared() shared}, its wait,
     * lease and owner) without a thread waiting: the answer is a future, completed with the lease, or
     * exceptionally with what {@link #acquire(LockSpec)} throws — {@link LockTimeoutException} when
     * the wait ran out, {@link LockBackendException}, {@link LockException} if the client closed
     * meanwhile, {@link IllegalStateException} for a client already closed or an upgrade,
     * {@link IllegalArgumentException} for a bad argument (never thrown by this method itself).
     * Leases, renewal, fencing tokens and {@link LockLease#onLost} are those of a blocking acquire;
     * so are the events (ACQUIRED, TIMEOUT, BUSY for a zero wait, ERROR).
     *
     * <ul>
     *   <li><b>Owner.</b> Reentrancy is by explicit owner only ({@link LockSpec#owner}): a request of an
     *       owner that holds the key nests in its hold at once, and one that waits nests as soon as
     *       that owner's hold is granted. Without an explicit owner each asynchronous acquisition is
     *       its own owner: it does not nest in the calling thread's hold (a thread has no meaning
     *       across callbacks), and waits for it like for any other holder. Its lease may be closed
     *       from any thread.</li>
     *   <li><b>Withdrawing.</b> Cancelling the future, the wait running out, or {@link #close()}
     *       withdraws the request exactly once: from this client's queue for the key, or from the
     *       server, which keeps nothing of it. A grant that races the cancel is released on the
     *       server, never leaked (its lease is closed; listeners see ACQUIRED then RELEASED).</li>
     *   <li><b>Threads.</b> No thread is held per waiter in this client: waits go through its queue
     *       for the key and the backend's {@link LockBackend#acquireAsync}. A backend without a native
     *       asynchronous wait holds one pool thread per request waiting at its server (one per contended
     *       key per client for exclusive requests); its documentation says whether it has one. The future is never completed
     *       on the calling thread (nor on a thread calling {@link #close()} or closing a lease); it is
     *       completed, and dependent stages added without an executor run, on Mortise's small shared
     *       pool {@link dev.mortise.lock.spi.AsyncWaits#executor()}, so such stages must not block: hand
     *       long work to an executor of your own ({@code thenApplyAsync(fn, executor)}).
     *       A stage added after completion runs on the thread that adds it, as always with
     *       {@link java.util.concurrent.CompletableFuture}.</li>
     * </ul>
     *
     * @return the lease, or a future completed exceptionally as described
     */
    java.util.concurrent.CompletableFuture<LockLease> acquireAsync(LockSpec spec);

    /**
     * As {@link #acquireAsync(LockSpec)}, but a wait that ran out (or, for a zero wait, a key that
     * is busy) completes the future with empty instead of {@link LockTimeoutException}.
     *
     * @return the lease, or empty if not granted within the spec's wait
     */
    java.util.concurrent.CompletableFuture<Optional<LockLease>> tryAcquireAsync(LockSpec spec);

    /**
     * Acquires every key of {@code keys} exclusively, or none, waiting up to {@code wait} for all
     * of them together. As {@link #acquireAll(MultiLockSpec)} with {@link MultiLockSpec#of}.
     *
     * @throws LockTimeoutException     if not every key was granted within {@code wait} (none is held)
     * @throws LockInterruptedException if interrupted while waiting (none is held)
     * @throws IllegalArgumentException if {@code keys} is empty or has a null, blank or over-long key
     */
    default MultiLease acquireAll(Collection<String> keys, Duration wait) {
        return acquireAll(MultiLockSpec.of(keys).waitFor(wait));
    }

    /**
     * Acquires every part of {@code spec}, or none: a multi-key lock.
     *
     * <ul>
     *   <li>Parts are taken one by one in canonical order, ascending {@link String#compareTo} of
     *       the keys, whatever order the caller gave: a total order every client agrees on, so two
     *       callers with overlapping key sets never deadlock. Duplicate keys are one part; a key
     *       asked for shared and exclusive is exclusive.</li>
     *   <li>The spec's wait is one deadline for the whole request; each part waits for what is
     *       left of it.</li>
     *   <li>If a part is not granted in time, the waiting thread is interrupted, or the backend
     *       fails, the parts already taken are released (in reverse order) before this throws:
     *       nothing is held and nothing is left on the server.</li>
     *   <li>Each part is an ordinary lease of this client (renewed, or with the spec's explicit
     *       lease; reentrant for its owner), sent to the backend as one acquire per key.</li>
     *   <li>Fast path: when no part is held or waited for in this client and the backend batches
     *       ({@link dev.mortise.lock.spi.LockBackend#tryAcquireAll}: Redis in its default mode, one
     *       script per cluster slot; etcd, one transaction; ZooKeeper, one write multi and one read
     *       multi; JDBC, one statement (two on MySQL/MariaDB); the in-process backend), every part is
     *       first tried in one all-or-nothing request: one round trip for N free keys on a single
     *       Redis server, etcd, ZooKeeper, PostgreSQL or H2. A
     *       busy part leaves nothing of it behind, and the parts are then taken one by one as above
     *       with what is left of the wait.</li>
     * </ul>
     *
     * @throws LockTimeoutException     if not every part was granted within the wait (none is held)
     * @throws LockInterruptedException if interrupted while waiting (none is held)
     * @throws LockBackendException     if the backend failed (the parts taken were released)
     * @throws IllegalArgumentException if the spec has no key, a bad key, wait, lease or owner
     */
    MultiLease acquireAll(MultiLockSpec spec);

    /**
     * Tries each key of {@code keys} once, exclusively: all of them, or none. Where the backend
     * batches, free keys are tried in one request (see {@link #acquireAll(MultiLockSpec)}).
     *
     * @return the multi-key lease, or empty if some key was held by another owner (none is held)
     */
    default Optional<MultiLease> tryAcquireAll(Collection<String> keys) {
        return tryAcquireAll(MultiLockSpec.of(keys));
    }

    /**
     * Tries for up to {@code wait} (for all keys together) to take every key of {@code keys}
     * exclusively, or none.
     *
     * @return the multi-key lease, or empty if not every key was granted in time (none is held)
     */
    default Optional<MultiLease> tryAcquireAll(Collection<String> keys, Duration wait) {
        return tryAcquireAll(MultiLockSpec.of(keys).waitFor(wait));
    }

    /**
     * As {@link #acquireAll(MultiLockSpec)}, but a part not granted in time gives an empty result
     * instead of an exception (after the parts taken were released).
     *
     * @return the multi-key lease, or empty if not every part was granted in time (none is held)
     * @throws LockInterruptedException if interrupted while waiting (none is held)
     * @throws LockBackendException     if the backend failed, or could not be told to release a part
     *                                  taken before the busy one (that part then expires with its lease)
     */
    Optional<MultiLease> tryAcquireAll(MultiLockSpec spec);

    /**
     * {@link #acquireAll(MultiLockSpec)} without a thread waiting: every part or none, in canonical
     * order under the spec's one deadline, through the same fast path, each part an ordinary lease
     * (its gate in this client, its token, {@link LockLease#onLost}), each waiting as
     * {@link #acquireAsync} waits. The future completes with the multi-key lease, or exceptionally
     * with what {@code acquireAll} throws ({@link LockTimeoutException} when a part was not granted
     * in time; none is held then), never on the calling thread. Cancelling it, a part's wait running
     * out, or {@link #close()} withdraws the part under way exactly once and releases the parts taken;
     * a lease that races the cancel is closed, never leaked. Owners and threads are as for
     * {@link #acquireAsync}: reentrancy by explicit owner only.
     *
     * @return the multi-key lease, or a future completed exceptionally as described
     */
    java.util.concurrent.CompletableFuture<MultiLease> acquireAllAsync(MultiLockSpec spec);

    /**
     * As {@link #acquireAllAsync(MultiLockSpec)}, but a part not granted in time completes the future
     * with empty (after the parts taken were released) instead of {@link LockTimeoutException}.
     *
     * @return the multi-key lease, or empty if not every part was granted in time (none is held)
     */
    java.util.concurrent.CompletableFuture<Optional<MultiLease>> tryAcquireAllAsync(MultiLockSpec spec);

    /**
     * Acquires {@code key} (waiting up to {@code wait}), runs {@code work}, releases, and
     * returns the work's result. The work's own exception reaches the caller unchanged; if
     * the lease was lost while the work ran, {@link LockLostException} is thrown instead of
     * returning its result (with the work's exception, if any, suppressed into it).
     */
    <T, X extends Throwable> T call(String key, Duration wait, LockCallable<T, X> work) throws X;

    /** As {@link #call} for work without a result. */
    <X extends Throwable> void run(String key, Duration wait, LockRunnable<X> work) throws X;

    /**
     * A {@link Lock} view of {@code key} for code written against {@code java.util.concurrent}.
     * Every view of one key from one client is the same lock (views may be created per call):
     * ownership is the thread's, {@code unlock()} through any view closes the innermost lease
     * the calling thread took through any view of this key, and throws
     * {@link IllegalMonitorStateException} if it has none. {@code newCondition()} is not
     * supported.
     */
    Lock asLock(String key);

    /**
     * A {@link Lock} view of {@code spec.key()} that takes the key as {@code spec} asks: in its
     * {@linkplain LockSpec#lockMode() mode}, and with its {@linkplain LockSpec#explicitLease()
     * explicit lease} if it has one (not renewed: the hold ends when the lease runs out unless
     * unlocked first), else with the client's default lease, renewed until unlocked. How long
     * to wait is the {@code Lock} method's ({@code lock()} and {@code lockInterruptibly()} until
     * granted, {@code tryLock()} not at all, {@code tryLock(time, unit)} up to {@code time});
     * {@link LockSpec#waitTime()} is ignored.
     *
     * <p>It is the same lock as every other view of the key in the same mode from this client
     * ({@link #asLock(String) asLock(key)} for an exclusive spec, the {@link #readWriteLock}
     * halves): ownership is the thread's, locks through any of them nest in the thread's one
     * stack, and {@code unlock()} through any of them closes the thread's innermost lease of the
     * key in that mode, or throws {@link IllegalMonitorStateException} if it has none. A nested
     * lock joins the thread's current hold whatever lease it asks for (the hold keeps the lease
     * it was taken with); only a lock that takes the key afresh uses this spec's lease. A view
     * may be created per call. {@code newCondition()} is not supported.
     *
     * @throws IllegalArgumentException if {@code spec} is null, its key invalid, or it names an
     *                                  {@linkplain LockSpec#owner owner} (views are owned by
     *                                  threads; use {@link #acquire(LockSpec)} for an owner id);
     *                                  the lease is checked by each lock, as by {@link #acquire(LockSpec)}
     */
    Lock asLock(LockSpec spec);

    /**
     * A {@link ReadWriteLock} view of {@code key}: its {@linkplain ReadWriteLock#readLock() read
     * lock} takes the key {@linkplain LockMode#SHARED shared}, its
     * {@linkplain ReadWriteLock#writeLock() write lock} exclusive, and the write lock is the same
     * lock as {@link #asLock(String) asLock(key)}: every view of one key from one client is one
     * read-write lock, owned by threads, as {@link #asLock} describes. Read inside write is
     * allowed (it nests in the write hold, so the key stays exclusive until both are unlocked);
     * write inside read (an upgrade) throws {@link IllegalStateException} at once, since two
     * readers upgrading would wait for each other forever. {@code newCondition()} is not
     * supported.
     *
     * @throws LockException on first use if the backend does not support shared locks
     *                       ({@link dev.mortise.lock.spi.LockBackend#supportsSharedMode()})
     */
    ReadWriteLock readWriteLock(String key);

    /**
     * Ends this client's hold on {@code key} at once, whichever owner opened it: its open
     * leases become lost ({@link LostReason#FORCE_RELEASED}, {@code onLost} fires) and the
     * server hold is released. For operators (the actuator endpoint), not for normal flow.
     *
     * @return true if this client held {@code key}
     * @throws LockBackendException if the server release failed (the hold then expires)
     */
    boolean forceRelease(String key);

    /**
     * Reads what the server records about {@code key} now: whether it is held, in which mode, by
     * which holders (each with its opaque {@linkplain LockInspection.Holder#holderId() holder id},
     * its fencing token and the lease the server still gives it, where the backend stores them,
     * and whether it is a live hold of this client), and how many requests wait where the server
     * knows. One read of the server (Redlock: of every node); it takes nothing, renews nothing,
     * wakes no one and leaves nothing behind, and never waits for the key. A snapshot: the key may
     * change hands at once. Owner strings (release credentials) are never shown, only their
     * digests. Thread-safe; may be called whether or not this client holds the key.
     *
     * @throws IllegalArgumentException      for a null, blank or over-long key, as {@link #acquire} does
     * @throws LockBackendException          if the server could not be read (names the key and the backend)
     * @throws IllegalStateException         if this client is closed
     * @throws UnsupportedOperationException if the backend cannot inspect keys
     *                                       ({@link dev.mortise.lock.spi.LockBackend#inspect})
     */
    LockInspection inspect(String key);

    /**
     * What this client's deadlock detection sees now: its waits longer than the threshold (published on
     * the server while their owners hold other locks) and the last cycles it found. The default, for
     * clients that do not detect deadlocks, reports detection off and nothing found.
     */
    default DeadlockReport deadlocks() {
        return new DeadlockReport(DeadlockDetection.off(), java.util.List.of(), java.util.List.of(), 0);
    }

    /**
     * One round trip to the backend's server, for health checks.
     *
     * @throws LockBackendException if it cannot be reached within the operation timeout
     */
    void ping();

    /** The backend's name, as in exception messages and metrics. */
    String backendName();

    /** What the backend guarantees (lease model, fairness, when fencing can break). */
    BackendGuarantees guarantees();

    /**
     * The shortest explicit lease this client accepts: the larger of what the backend can
     * honour ({@link dev.mortise.lock.spi.BackendGuarantees#minimumLease()}) and the least lease
     * that keeps two thirds of itself after the clock-drift allowance. Shorter leases make
     * {@code acquire} and {@code extend} throw {@link IllegalArgumentException}.
     */
    Duration shortestLease();

    /**
     * Starts setting up this client's candidate for leadership of {@code group}: a
     * {@link LeaderElection} on the lock {@code "leader:" + group}, whose epoch is that lock's
     * fencing token. {@code leadership("billing").start()} contends at once.
     *
     * @throws IllegalArgumentException if {@code group} is null or blank
     */
    default LeaderElectionBuilder leadership(String group) {
        return new LeaderElectionBuilder(this, group);
    }

    /**
     * A counting semaphore {@code name} with {@code permits} permits over this client's backend:
     * at most {@code permits} permits held at once across all clients. Native (one key
     * {@code name + "#permits"}, the count stored on the server) where the backend keeps permits
     * ({@link dev.mortise.lock.spi.LockBackend#supportsPermits()}), else built on the lock keys
     * {@code name + "#permit-" + i}. See {@link LockSemaphore} for the key layout, the guarantees
     * and what each form provides (fairness, count checks, one fencing counter per name).
     * A name whose keys are too long for this client ({@link LockClientBuilder#maxKeyBytes})
     * is rejected by the first acquire, naming the key.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank, or {@code permits} is not positive
     */
    LockSemaphore semaphore(String name, int permits);

    /** A snapshot of the holds of this client, for diagnostics. */
    List<HeldLock> heldLocks();

    /**
     * Releases every hold still open (their leases become lost with
     * {@link LostReason#CLIENT_CLOSED}), stops the watchdog and closes the backend. Acquires
     * under way or queued fail with a {@link LockException} saying the client closed; a grant
     * that reaches one of them after this is released on the server, never handed out. Later
     * acquires throw {@link IllegalStateException}. Idempotent.
     */
    @Override
    void close();
}
