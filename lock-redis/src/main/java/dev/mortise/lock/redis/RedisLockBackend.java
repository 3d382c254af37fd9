package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.LockCommands;
import dev.mortise.lock.redis.internal.RedisWaitRecords;
import dev.mortise.lock.redis.internal.ScriptRunner;
import dev.mortise.lock.redis.internal.WaitingAcquisition;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;
import dev.mortise.lock.spi.WaitDriver;
import dev.mortise.lock.spi.WaitRecords;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Redis backend ({@code "redis"}): one Redis deployment — a single server, a Sentinel
 * group or a Redis Cluster — reached through Redisson or Lettuce ({@link RedisDriver}), which
 * supply connections, topology and pub/sub. The locking itself is our own Lua, one round trip per operation:
 * the lock key holds the owner with the lease as its TTL, a counter key in the same
 * cluster slot issues fencing tokens and never expires, release publishes to waiters.
 *
 * <pre>{@code
 * LockBackend redis = RedisLockBackend.builder().address("redis://127.0.0.1:6379").build();
 * LockClient locks = LockClient.builder(redis).build();
 * }</pre>
 *
 * <p>Thread-safe; holds no per-lock state but the release subscriptions of keys it waits for
 * (one per key, closed 500 ms after its last waiter). Every operation waits at most the operation
 * timeout (plus the replica wait, if one is configured) and reports failures as
 * {@link LockBackendException}. {@link #close()} shuts the client down only if this
 * backend built it. See {@code docs/redis.md} for what each deployment guarantees.
 */
public final class RedisLockBackend implements LockBackend {

    /** The backend's name in messages, metrics and configuration. */
    public static final String NAME = "redis";

    private static final String FENCING_COUNTER =
            "A per-key counter key (no TTL) in the lock's cluster slot, incremented by the acquire script: strictly "
                    + "increasing while Redis keeps that key; a failover that loses unreplicated writes, a restart "
                    + "without persistence, FLUSHALL or eviction of the counter can repeat tokens.";
    private static final String FENCING_SERVER_CLOCK =
            "max(counter + 1, the granting server's TIME in microseconds), taken inside the acquire script; the "
                    + "counter key (no TTL) lives in the lock's cluster slot: strictly increasing while Redis keeps "
                    + "that key, and still increasing when it loses it (restart without persistence, failover that "
                    + "loses unreplicated writes, FLUSHALL, eviction) unless the clock of the server granting after "
                    + "the loss is behind the last token by more than the loss took (a clock stepped back, or a "
                    + "promoted replica's clock that far behind the old master's).";

    private final ScriptRunner runner;
    private final LockCommands commands;
    private final WaitRecords waitRecords;
    private final AtomicBoolean closed = new AtomicBoolean();

    RedisLockBackend(ScriptRunner runner, LockCommands commands) {
        this.runner = runner;
        this.commands = commands;
        this.waitRecords = new RedisWaitRecords(commands);
    }

    /** A builder; give it exactly one of an address, cluster nodes, a Sentinel group, a Config or a client. */
    public static RedisLockBackendBuilder builder() {
        return new RedisLockBackendBuilder();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public BackendGuarantees guarantees() {
        return new BackendGuarantees(BackendGuarantees.LeaseModel.TIME_BOUND, commands.deployment().fair(),
                BackendGuarantees.Wakeup.PUSH,
                commands.deployment().serverClock() ? FENCING_SERVER_CLOCK : FENCING_COUNTER, Duration.ofMillis(1));
    }

    /**
     * Shared (read) locks, natively: a key's readers are a hash beside its lock key, one field per
     * shared hold (owner → expiry and token), whose TTL is kept at the latest reader's expiry; every
     * grant takes its token from the key's one counter. Default mode: a waiting exclusive request
     * leaves a marker that refuses new readers until it is granted or gives up; fair mode: readers
     * and writers queue in one order and a release hands the lock to the writer at the head, or their
     * shares to all the readers at the head. See {@code docs/redis.md}, "Read-write locks".
     */
    @Override
    public boolean supportsSharedMode() {
        return true;
    }

    /**
     * Native semaphores in the default mode ({@code acquire-permits.lua}): a permit hold is a share
     * of the key's readers hash that carries its count, the semaphore's count is the hash's
     * {@code #limit} field, one script call acquires and one releases; waiters are woken by the release
     * message and retry (not fair: whoever retries first and fits wins). Fair mode answers false (the
     * slot fallback) since its queue hands a release to the head without weighing counts. See
     * {@code docs/redis.md}, "Semaphores".
     */
    @Override
    public boolean supportsPermits() {
        return !commands.deployment().fair();
    }

    /** One script call ({@code set-permits.lua}) that also wakes the semaphore's waiters. */
    @Override
    public void setPermits(String key, int limit) {
        commands.shared().setPermits(key, limit);
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return commands.attempts().acquire(request);
    }

    /**
     * Natively in the default mode: one script call per cluster slot ({@code acquire-all.lua}),
     * so on a single server, a Sentinel group, or a Cluster with every key in one slot, one round trip
     * whatever the number of keys, shared and exclusive parts alike. Across slots the calls go one
     * after the other in the order of each slot's first key, and a busy key in a later slot releases
     * the earlier slots' grants before the answer is empty. Fair mode and {@code waitForReplicas}
     * answer {@code null} (the core takes the keys one by one). See {@code docs/redis.md}.
     */
    @Override
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        return commands.batch().acquireAll(requests);
    }

    /**
     * Waits for a release message instead of polling (see {@code WaitingAcquisition}): joins the key's
     * release channel (one subscription per key, shared by this backend's waiters and kept
     * for {@code ReleaseChannels.LINGER} after the last), retries once the server confirmed
     * it, then sleeps until a release is published or the holder's lease runs out. In fair
     * mode the waiter queues on the server and is handed the lock by the release script.
     * Timeout and interruption leave the channel and the queue; nothing of the waiter remains
     * on the server once the linger ends, except, after an attempt whose answer did not come,
     * that owner's cancelled marker, which refuses the attempt should it still arrive and
     * expires after the lease plus twice the operation timeout (see {@code docs/redis.md}).
     */
    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        return WaitDriver.await(new WaitingAcquisition(commands, request, wait), request.key());
    }

    /**
     * The same wait as {@link #acquire}, run on the shared asynchronous threads: between its steps it
     * holds no thread, sleeping on the release message, the hand-off, the subscription's confirmation
     * or the holder's lease end. Completing the answer (cancel) withdraws the request as an interrupt
     * does; a grant that arrives after that is released.
     */
    @Override
    public CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        return WaitDriver.start(this, new WaitingAcquisition(commands, request, wait));
    }

    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        return commands.holds().renewAll(Set.of(grant), lease).contains(grant) ? Optional.empty() : Optional.of(lease);
    }

    /** One script call per cluster slot, pipelined per node: one round trip per node. Redis applies the lease it is sent. */
    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        return Renewals.of(commands.holds().renewAll(grants, lease), lease);
    }

    @Override
    public boolean release(Grant grant) {
        return commands.holds().release(grant);
    }

    /**
     * One read-only script call on the node of the key's slot ({@code inspect.lua}): the lock key's
     * owner, PTTL and the fence counter (the exclusive holder's token), or each live reader of the
     * readers hash with its own expiry and token. Waiters: in fair mode the live entries of the
     * server-side queue (readers and writers); in the default mode empty, since only waiting writers
     * leave a trace on the server (their markers) and waiting readers none, so no honest count exists.
     */
    @Override
    public KeyState inspect(String key) {
        return commands.inspection().inspect(key);
    }

    /**
     * A string per holder id, {@code <prefix>:waits:{<holder id>}} = {@code <nonce>:<text>}, expired by
     * the server ({@code PX}); each call is one script call per Cluster slot, pipelined per node: one
     * round trip on a single server or Sentinel group. See {@code docs/redis.md}, "Wait records".
     */
    @Override
    public Optional<WaitRecords> waitRecords() {
        return Optional.of(waitRecords);
    }

    @Override
    public void ping() {
        commands.inspection().ping();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            commands.channels().close();
            runner.transport().close(); // shuts the client down only if the builder built it
        }
    }

    @Override
    public String toString() {
        return "RedisLockBackend[" + runner.where() + "]";
    }
}
