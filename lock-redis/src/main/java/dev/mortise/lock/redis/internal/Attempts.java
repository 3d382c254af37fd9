package dev.mortise.lock.redis.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One acquire attempt of any mode on one deployment, from the request to its answer: the script of
 * the request's mode ({@link ExclusiveCommands}, {@link SharedCommands}, {@link FairCommands}), sent
 * (followed by {@code WAIT} when replicas are required), awaited within the operation timeout, and
 * read into an {@link Attempt} whose grant counts from the send. A failed, timed-out or
 * under-replicated attempt is cancelled ({@link HoldCommands#cancelAsync}) before its failure is
 * thrown. Thread-safe.
 */
public final class Attempts {

    private final Deployment deployment;
    private final ExclusiveCommands exclusive;
    private final SharedCommands shared;
    private final FairCommands fair;
    private final HoldCommands holds;

    Attempts(Deployment deployment, ExclusiveCommands exclusive, SharedCommands shared, FairCommands fair,
             HoldCommands holds) {
        this.deployment = deployment;
        this.exclusive = exclusive;
        this.shared = shared;
        this.fair = fair;
        this.holds = holds;
    }

    /** One attempt that never waits ({@code tryAcquire}). */
    public Attempt acquire(LockRequest request) {
        RedisKeys keys = deployment.keys(request.key());
        deployment.runner().ensureReady(request.key());
        return finish(start(request, keys, false, Duration.ZERO, 0), request, keys);
    }

    private ScriptCall requestCall(RedisKeys keys, LockRequest request, boolean enqueue, Duration waiterTtl,
                                   long deadline) {
        if (deployment.fair()) {
            return fair.acquire(keys, request, enqueue, waiterTtl);
        }
        if (request.takesPermits()) {
            // enqueue: a retry of a waiting request, which follows the stored count (see acquire-permits.lua)
            return shared.acquirePermits(keys, request, enqueue);
        }
        if (request.shared()) {
            return shared.acquire(keys, request.owner(), request.lease());
        }
        return exclusive.acquire(keys, request.owner(), request.lease(), enqueue ? waiterTtl : Duration.ZERO,
                deadline);
    }

    /**
     * Sends one attempt without waiting. With {@code waiting}, in fair mode a busy attempt joins (or
     * refreshes its place in) the queue for {@code waiterTtl}; in the default mode a busy exclusive
     * attempt leaves (or refreshes) its writer-waiting marker, which lapses by {@code deadline}
     * ({@link System#nanoTime()}) at the latest, and a permit attempt follows the stored count.
     */
    PendingAttempt start(LockRequest request, RedisKeys keys, boolean waiting, Duration waiterTtl, long deadline) {
        ScriptCall call = requestCall(keys, request, waiting, waiterTtl, deadline);
        long requestedAt = System.nanoTime();
        ScriptRunner runner = deployment.runner();
        CompletableFuture<?> reply = deployment.replicas() == 0 ? runner.send(call, false)
                : runner.sendBatch(List.of(call), deployment.replicas(), deployment.replicaTimeout(), false);
        return new PendingAttempt(call, reply, requestedAt);
    }

    /**
     * Waits for a {@link #start started} attempt, at most the operation timeout (plus the
     * replica wait), and reads it. A failed or timed-out attempt may still run on the server,
     * later than anything sent after it on another pooled connection, so it is cancelled
     * ({@link HoldCommands#cancelAsync}) before the failure is thrown: whatever it took is given back,
     * and if it arrives after the clean-up it is refused. The caller does not wait for the clean-up.
     */
    Attempt finish(PendingAttempt pending, LockRequest request, RedisKeys keys) {
        return answer(pending, request, keys).attempt();
    }

    /** {@link #finish}, also telling whether live readers refused the attempt, and the fence counter of a refusal. */
    AttemptAnswer answer(PendingAttempt pending, LockRequest request, RedisKeys keys) {
        ScriptRunner runner = deployment.runner();
        int replicas = deployment.replicas();
        List<Object> reply;
        int synced = replicas;
        try {
            if (replicas == 0) {
                CompletableFuture<List<Object>> first = cast(pending.reply());
                reply = runner.await(first, () -> runner.send(pending.call(), true), runner.timeout(), request.key(),
                        "acquire");
            } else {
                Duration replicaTimeout = deployment.replicaTimeout();
                CompletableFuture<BatchReply> first = cast(pending.reply());
                BatchReply result = runner.await(first,
                        () -> runner.sendBatch(List.of(pending.call()), replicas, replicaTimeout, true),
                        runner.timeout().plus(replicaTimeout), request.key(), "acquire");
                reply = cast(result.replies().get(0));
                synced = result.syncedReplicas();
            }
        } catch (LockBackendException e) {
            holds.cancelAsync(keys, request.owner(), request.lease());
            throw e;
        }
        Attempt attempt = toAttempt(reply, request, keys, pending.requestedAt());
        if (attempt.isGranted() && synced < replicas) {
            holds.cancelAsync(keys, request.owner(), request.lease());
            throw new LockBackendException("Backend 'redis' (" + runner.where() + ") granted lock '"
                    + ScriptRunner.abbreviate(request.key()) + "' but only " + synced + " of the required " + replicas
                    + " replica(s) acknowledged it within " + deployment.replicaTimeout().toMillis() + " ms, so the "
                    + "grant was withdrawn. Check replication (INFO replication), raise replicaTimeout or lower "
                    + "waitForReplicas.", request.key(), "redis", null);
        }
        boolean refused = !attempt.isGranted();
        return new AttemptAnswer(attempt, refused && reply.size() > 2 && ((Number) reply.get(2)).longValue() == 1,
                refused && reply.size() > 3 ? ((Number) reply.get(3)).longValue() : Long.MAX_VALUE);
    }

    /**
     * Waits (at most the operation timeout) until a started attempt has been answered.
     *
     * @return true if the server answered it; false if it failed or no answer came in time (it
     *         may then still run on the server, later)
     */
    boolean settle(PendingAttempt pending, String key) {
        ScriptRunner runner = deployment.runner();
        try {
            runner.await(pending.reply(), runner.timeout(), key, "acquire");
            return true;
        } catch (LockBackendException e) {
            return false;
        }
    }

    /**
     * Reads an acquire reply: {1, token} granted, {0, pttl} busy; for a permit request {2, stored count}
     * is thrown as {@link PermitCountMismatchException}.
     */
    static Attempt toAttempt(List<Object> reply, LockRequest request, RedisKeys keys, long requestedAt) {
        long value = ((Number) reply.get(1)).longValue();
        long status = ((Number) reply.get(0)).longValue();
        if (status == 1) {
            return Attempt.granted(grant(request, keys, value, requestedAt));
        }
        if (status == 2 && request.takesPermits()) {
            throw new PermitCountMismatchException(request.key(), "redis", (int) value, request.permits().limit());
        }
        return Attempt.busy(value >= 0 ? Duration.ofMillis(value) : null);
    }

    /** A grant of {@code request}: its state is the key's names, wrapped in a {@link ReadHold} when shared. */
    static Grant grant(LockRequest request, RedisKeys keys, long token, long requestedAt) {
        return new Grant(request.key(), request.owner(), token, requestedAt,
                request.shared() ? new ReadHold(keys) : keys);
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object reply) {
        return (T) reply;
    }
}
