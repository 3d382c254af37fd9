package dev.mortise.lock.redis.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The lock operations on one Redis deployment, as script calls: acquire, renew (batched
 * by slot), release, ping; and, when replicas are required, each write followed by
 * {@code WAIT} on the same connection. Thread-safe.
 */
public final class LockCommands {

    /** Modes of the fair release script: release a hold, leave the queue, cancel an attempt. */
    private static final String RELEASE = "0";
    private static final String LEAVE = "1";
    private static final String CANCEL = "2";

    private final ScriptRunner runner;
    private final String prefix;
    private final boolean cluster;
    private final int replicas;
    private final Duration replicaTimeout;
    private final boolean fair;
    /** ARGV flag of the granting scripts: "1" numbers grants by the server clock, "0" by the counter. */
    private final String clock;
    private final ReleaseChannels channels;
    private final Duration waiterTtl;
    /** The lease of the requests, as sent: the same lease nearly every time. */
    private final MillisText leaseText = new MillisText();
    /** The writer-waiting marker's TTL, as sent: the waiter TTL every time. */
    private final MillisText markText = new MillisText();

    /**
     * @param cluster        whether keys of different slots must go in different script calls
     * @param replicas       replicas that must acknowledge a grant or renewal (0: none)
     * @param replicaTimeout how long {@code WAIT} waits for them
     * @param fair           whether waiters queue on the server and release hands over ({@link FairScripts})
     * @param serverClock    whether a new holder's token is {@code max(counter + 1, server TIME in µs)}
     *                       ({@link Scripts#NEXT_TOKEN}) rather than {@code counter + 1}
     */
    public LockCommands(ScriptRunner runner, String prefix, boolean cluster, int replicas, Duration replicaTimeout,
                        boolean fair, boolean serverClock) {
        this.runner = runner;
        this.prefix = prefix;
        this.cluster = cluster;
        this.replicas = replicas;
        this.replicaTimeout = replicaTimeout;
        this.fair = fair;
        this.clock = serverClock ? "1" : "0";
        this.channels = new ReleaseChannels(runner);
        // A queue entry outlives a few missed heartbeats and one slow round trip, no more.
        this.waiterTtl = PushWait.HEARTBEAT.multipliedBy(3).plus(runner.timeout());
    }

    /** Fair mode: how long a waiter's queue entry lives unless refreshed. */
    Duration waiterTtl() {
        return waiterTtl;
    }

    public ScriptRunner runner() {
        return runner;
    }

    /** The release-channel subscriptions of waiters on this deployment. */
    public ReleaseChannels channels() {
        return channels;
    }

    public RedisKeys keys(String key) {
        return RedisKeys.of(prefix, key);
    }

    // ---- asynchronous primitives (Redlock sends them to many nodes at once) -------------------

    /**
     * An exclusive attempt; {@code markTtl} above zero leaves a "writer waiting" marker if refused and,
     * where releases hand over ({@link #handsOver()}), an offer to be handed the lock.
     */
    private ScriptCall acquireCall(RedisKeys keys, String owner, Duration lease, Duration markTtl, long deadline) {
        boolean mark = !markTtl.isZero();
        if (mark && handsOver()) {
            return ScriptCall.of(Scripts.ACQUIRE, ScriptReturn.LIST,
                    List.of(keys.lock(), keys.fenceName(), keys.cancelledName(owner), keys.readersName(),
                            keys.writersName(), keys.handOffsName()), owner,
                    leaseText.of(lease), clock, markText.of(markTtl), millisOfNanos(Deadlines.left(deadline)),
                    handOffWindow(lease));
        }
        return ScriptCall.of(Scripts.ACQUIRE, ScriptReturn.LIST,
                List.of(keys.lock(), keys.fenceName(), keys.cancelledName(owner), keys.readersName(),
                        keys.writersName()), owner,
                leaseText.of(lease), clock, mark ? markText.of(markTtl) : "0",
                mark ? millisOfNanos(Deadlines.left(deadline)) : "0");
    }

    /**
     * Whether an exclusive release hands the lock straight to a waiting writer ({@link Scripts#RELEASE_HANDING}):
     * in the default mode without {@code waitForReplicas} (a hand-off has no {@code WAIT} of its own, so
     * there every waiter asks again and waits for its replicas).
     */
    boolean handsOver() {
        return !fair && replicas == 0;
    }

    /** Whether grants count only once {@code WAIT} says enough replicas have them ({@code waitForReplicas}). */
    boolean waitsForReplicas() {
        return replicas > 0;
    }

    /**
     * How long a waiting writer's hand-off offer stays fresh after its attempt: a third of its lease,
     * at most {@link PushWait#HEARTBEAT}. A handed lease counts from that attempt, so at least two
     * thirds of it are left at the hand-off; and a waiter that died right after asking can be handed
     * the lock only within this window (it then holds the lock for its lease, as a holder that dies).
     */
    static String handOffWindow(Duration lease) {
        return Long.toString(Math.max(1, Math.min(PushWait.HEARTBEAT.toMillis(), lease.toMillis() / 3)));
    }

    private ScriptCall acquireSharedCall(RedisKeys keys, String owner, Duration lease) {
        return ScriptCall.of(Scripts.ACQUIRE_SHARED, ScriptReturn.LIST,
                List.of(keys.lock(), keys.fenceName(), keys.cancelledName(owner), keys.readersName(),
                        keys.writersName()), owner,
                leaseText.of(lease), clock);
    }

    private static String millis(Duration duration) {
        return Long.toString(Math.max(1, duration.toMillis()));
    }

    /** As {@link #millis}, for nanoseconds: no Duration per waiting acquire. */
    private static String millisOfNanos(long nanos) {
        return Long.toString(Math.max(1, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nanos)));
    }

    /**
     * How long after a clean-up starts an attempt it cleans up after can still matter: the
     * attempt's lease plus twice the operation timeout (the client's own wait and one resend of
     * the attempt fit in it). The cancelled marker lives this long, and a clean-up the server has
     * not confirmed is retried until then; an attempt that ran on the server within the client's
     * timeouts has expired by itself by then.
     */
    Duration horizon(Duration lease) {
        return lease.plus(runner.timeout().multipliedBy(2));
    }

    private long deadline(Duration span) {
        return System.nanoTime() + span.toNanos();
    }

    /** Replies {1, token} if {@code owner} now holds the lock, else {0, holder's PTTL}. */
    public CompletableFuture<List<Object>> acquireAsync(RedisKeys keys, String owner, Duration lease) {
        return runner.callAsync(acquireCall(keys, owner, lease, Duration.ZERO, 0));
    }

    /**
     * Redlock: owner-checked release on a node whose acquire was answered (so it cannot arrive
     * later); retried in the background until confirmed or {@link #horizon} of {@code lease}.
     *
     * @return the first try's reply: 1 if the owner held the lock there, else 0
     */
    public CompletableFuture<Long> releaseAsync(RedisKeys keys, String owner, Duration lease) {
        return CleanUps.send(runner, releaseCall(keys, owner, RELEASE, false), deadline(horizon(lease)));
    }

    /**
     * Clean-up of an attempt whose answer never came (or may come later): deletes the lock if
     * {@code owner} holds it and, always, sets the owner's cancelled marker for {@link #horizon}
     * of {@code lease}, so the attempt is refused if it reaches the server after this. Retried in
     * the background until confirmed or the horizon passes. In fair mode it also leaves the queue
     * (and passes on a lock handed over meanwhile).
     *
     * @return the first try's reply: 1 if the owner held the lock, else 0
     */
    public CompletableFuture<Long> cancelAsync(RedisKeys keys, String owner, Duration lease) {
        return CleanUps.send(runner, cancelCall(keys, owner, lease, true), deadline(horizon(lease)));
    }

    /**
     * Redlock's release of a grant: on each node, the lock is deleted if the owner holds it;
     * where it does not (a node whose acquire never answered), the owner's cancelled marker is
     * set instead, so that acquire is refused if it arrives later. Retried like {@link #cancelAsync}.
     */
    public CompletableFuture<Long> releaseOrCancelAsync(RedisKeys keys, String owner, Duration lease) {
        return CleanUps.send(runner, cancelCall(keys, owner, lease, false), deadline(horizon(lease)));
    }

    private ScriptCall releaseCall(RedisKeys keys, String owner, String mode, boolean shared) {
        if (fair) {
            return ScriptCall.of(FairScripts.RELEASE, ScriptReturn.LONG, fairKeys(keys, owner), owner,
                    keys.channel(), mode, "1", clock);
        }
        if (shared) {
            return ScriptCall.of(Scripts.RELEASE_SHARED, ScriptReturn.LONG, List.of(keys.readers()), owner,
                    keys.channel());
        }
        return ScriptCall.of(Scripts.RELEASE, ScriptReturn.LONG, List.of(keys.lock()), owner, keys.channel());
    }

    /** The release of a grant of this deployment: hands over to a waiting writer where {@link #handsOver()}. */
    private ScriptCall releaseHoldCall(RedisKeys keys, String owner, boolean shared) {
        if (shared || !handsOver()) {
            return releaseCall(keys, owner, RELEASE, shared);
        }
        return ScriptCall.of(Scripts.RELEASE_HANDING, ScriptReturn.LONG,
                List.of(keys.lock(), keys.fenceName(), keys.writersName(), keys.handOffsName()), owner,
                keys.channelName(), clock);
    }

    /** KEYS of the fair scripts: lock, fence, queue, waiters, the owner's cancelled marker, readers. */
    private static List<Object> fairKeys(RedisKeys keys, String owner) {
        return List.of(keys.lock(), keys.fence(), keys.queue(), keys.waiters(), keys.cancelled(owner),
                keys.readers());
    }

    private ScriptCall cancelCall(RedisKeys keys, String owner, Duration lease, boolean always) {
        String ttl = millis(horizon(lease));
        if (fair) {
            return ScriptCall.of(FairScripts.RELEASE, ScriptReturn.LONG, fairKeys(keys, owner), owner,
                    keys.channel(), CANCEL, ttl, clock);
        }
        return ScriptCall.of(Scripts.CANCEL, ScriptReturn.LONG, List.of(keys.lock(), keys.cancelled(owner),
                keys.readers(), keys.writers(), keys.handOffs()), owner, keys.channel(), ttl, always ? "1" : "0");
    }

    /**
     * Fair mode: a waiter gives up. Removes its queue entry and, if the lock was handed to it
     * meanwhile, releases it to the next waiter. Waits for the server at most the operation
     * timeout; if it does not confirm, the leave is retried in the background until confirmed or
     * until the entry has lapsed and a lock handed to it meanwhile has run out (waiter TTL plus
     * {@link #horizon} of the lease): a hand-off to a waiter that is gone would hold the lock for
     * a whole lease.
     */
    public void leave(RedisKeys keys, LockRequest request) {
        CompletableFuture<Long> first = CleanUps.send(runner, releaseCall(keys, request.owner(), LEAVE,
                request.shared()), deadline(waiterTtl.plus(horizon(request.lease()))));
        try {
            runner.await(first, runner.timeout(), request.key(), "leave the queue of");
        } catch (RuntimeException e) {
            // retried in the background; the caller is already failing or giving up
        }
    }

    /**
     * Non-fair mode: a waiting exclusive request gives up. Removes its "writer waiting" marker and its
     * hand-off offer, and releases a lock handed to it meanwhile (telling waiters then, and when the
     * marker was the last, so readers it held back go at once). With {@code await},
     * waits for the server at most the operation timeout; if it does not confirm, the removal is
     * retried in the background until the marker has lapsed by itself (at most the waiter TTL after
     * the blocking hold's lease).
     */
    public void unmark(RedisKeys keys, LockRequest request, boolean await) {
        ScriptCall call = ScriptCall.of(Scripts.UNMARK, ScriptReturn.LONG,
                List.of(keys.lock(), keys.readers(), keys.writers(), keys.handOffs()), request.owner(), keys.channel());
        CompletableFuture<Long> first = CleanUps.send(runner, call, deadline(waiterTtl.plus(horizon(request.lease()))));
        if (!await) {
            return;
        }
        try {
            runner.await(first, runner.timeout(), request.key(), "withdraw the writer-waiting marker of");
        } catch (RuntimeException e) {
            // retried in the background; the caller is already failing or giving up
        }
    }

    public boolean fair() {
        return fair;
    }

    /** Whether grants are numbered {@code max(counter + 1, server TIME in µs)} rather than {@code counter + 1}. */
    public boolean serverClock() {
        return clock.equals("1");
    }

    public CompletableFuture<Long> raiseFenceAsync(RedisKeys keys, String owner, long token) {
        return runner.callAsync(ScriptCall.of(Scripts.RAISE_FENCE, ScriptReturn.LONG,
                List.of(keys.lock(), keys.fence()), owner, Long.toString(token)));
    }

    /**
     * Renews holds that all live in one slot (or on one non-cluster server): lock keys and
     * their owners, in the same order. Replies one flag (1 renewed, 0 gone) per hold.
     */
    public CompletableFuture<List<Object>> renewAsync(List<String> lockKeys, List<String> owners, Duration lease) {
        return runner.callAsync(renewCall(lockKeys, owners, "", lease));
    }

    /** Exclusive and shared holds together: the lock of each exclusive one, the readers of each shared one. */
    private static ScriptCall renewCall(List<Grant> grants, Duration lease) {
        List<String> keys = new ArrayList<>(grants.size());
        StringBuilder modes = null;
        for (int i = 0; i < grants.size(); i++) {
            Object state = grants.get(i).state();
            if (ReadHold.isShared(state)) {
                if (modes == null) {
                    modes = new StringBuilder(grants.size()).append("X".repeat(i));
                }
                modes.append('S');
                keys.add(((ReadHold) state).keys().readers());
            } else {
                if (modes != null) {
                    modes.append('X');
                }
                keys.add(((RedisKeys) state).lock());
            }
        }
        return renewCall(keys, grants.stream().map(Grant::owner).toList(), modes == null ? "" : modes.toString(),
                lease);
    }

    /** {@code modes}: one character per key, 'S' for the readers of a shared hold; empty when all are exclusive. */
    private static ScriptCall renewCall(List<String> holdKeys, List<String> owners, String modes, Duration lease) {
        Object[] args = new Object[owners.size() + 2];
        args[0] = Long.toString(Math.max(1, lease.toMillis()));
        args[1] = modes;
        for (int i = 0; i < owners.size(); i++) {
            args[i + 2] = owners.get(i);
        }
        return ScriptCall.of(Scripts.RENEW, ScriptReturn.LIST, new ArrayList<>(holdKeys), args);
    }

    /**
     * Reads an acquire reply: {1, token} granted, {0, pttl} busy; for a permit request {2, stored count}
     * is thrown as {@link PermitCountMismatchException}.
     */
    public static Attempt toAttempt(List<Object> reply, LockRequest request, RedisKeys keys, long requestedAt) {
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
    public static Grant grant(LockRequest request, RedisKeys keys, long token, long requestedAt) {
        return new Grant(request.key(), request.owner(), token, requestedAt,
                request.shared() ? new ReadHold(keys) : keys);
    }

    /**
     * An answered attempt; whether live readers were what refused it (an exclusive request then
     * refreshes its writer-waiting marker at least every {@link PushWait#HEARTBEAT}); and the key's fence
     * counter when the server refused it ({@link Long#MAX_VALUE} when the answer carried none: a
     * granted or cancelled attempt). A hand-off whose token is not above a refusal's counter was made
     * before that refusal, and its lease had ended by then.
     */
    public record Answer(Attempt attempt, boolean readersHold, long fence) {
    }

    // ---- synchronous operations of the single-deployment backend -------------------------------

    public Attempt acquire(LockRequest request) {
        return acquire(request, false, Duration.ZERO);
    }

    private ScriptCall requestCall(RedisKeys keys, LockRequest request, boolean enqueue, Duration waiterTtl,
                                   long deadline) {
        if (!fair) {
            if (request.takesPermits()) {
                // enqueue: a retry of a waiting request, which follows the stored count (see ACQUIRE_PERMITS)
                return ScriptCall.of(Scripts.ACQUIRE_PERMITS, ScriptReturn.LIST,
                        List.of(keys.lock(), keys.fence(), keys.cancelled(request.owner()), keys.readers()),
                        request.owner(), leaseText.of(request.lease()), clock, Integer.toString(request.permits().count()),
                        Integer.toString(request.permits().limit()), enqueue ? "1" : "0");
            }
            if (request.shared()) {
                return acquireSharedCall(keys, request.owner(), request.lease());
            }
            return acquireCall(keys, request.owner(), request.lease(), enqueue ? waiterTtl : Duration.ZERO, deadline);
        }
        return ScriptCall.of(FairScripts.ACQUIRE, ScriptReturn.LIST, fairKeys(keys, request.owner()),
                request.owner(), leaseText.of(request.lease()), enqueue ? "1" : "0", millis(waiterTtl), clock,
                request.shared() ? "S" : "X");
    }

    /**
     * One attempt; in fair mode with {@code enqueue}, a busy attempt also joins (or refreshes
     * its place in) the server-side queue for {@code waiterTtl}.
     */
    public Attempt acquire(LockRequest request, boolean enqueue, Duration waiterTtl) {
        RedisKeys keys = keys(request.key());
        runner.ensureReady(request.key());
        return finish(start(request, keys, enqueue, waiterTtl, 0), request, keys);
    }

    /**
     * An attempt on its way: the call, its reply to come (a script reply, or with
     * {@code waitForReplicas} a batch result), and {@link System#nanoTime()} just before it was sent.
     */
    public record Pending(ScriptCall call, CompletableFuture<?> reply, long requestedAt) {
    }

    /**
     * Sends one attempt without waiting (see {@link #acquire(LockRequest, boolean, Duration)}). With
     * {@code waiting}, in fair mode a busy attempt joins (or refreshes its place in) the queue for
     * {@code waiterTtl}; in the default mode a busy exclusive attempt leaves (or refreshes) its
     * writer-waiting marker, which lapses by {@code deadline} ({@link System#nanoTime()}) at the latest.
     */
    public Pending start(LockRequest request, RedisKeys keys, boolean waiting, Duration waiterTtl, long deadline) {
        ScriptCall call = requestCall(keys, request, waiting, waiterTtl, deadline);
        long requestedAt = System.nanoTime();
        CompletableFuture<?> reply = replicas == 0 ? runner.send(call, false)
                : runner.sendBatch(List.of(call), replicas, replicaTimeout, false);
        return new Pending(call, reply, requestedAt);
    }

    /**
     * Waits for a {@link #start started} attempt, at most the operation timeout (plus the
     * replica wait), and reads it. A failed or timed-out attempt may still run on the server,
     * later than anything sent after it on another pooled connection, so it is cancelled
     * ({@link #cancelAsync}) before the failure is thrown: whatever it took is given back, and if
     * it arrives after the clean-up it is refused. The caller does not wait for the clean-up.
     */
    public Attempt finish(Pending pending, LockRequest request, RedisKeys keys) {
        return answer(pending, request, keys).attempt();
    }

    /** {@link #finish}, also telling whether live readers refused the attempt. */
    public Answer answer(Pending pending, LockRequest request, RedisKeys keys) {
        List<Object> reply;
        int synced = replicas;
        try {
            if (replicas == 0) {
                CompletableFuture<List<Object>> first = cast(pending.reply());
                reply = runner.await(first, () -> runner.send(pending.call(), true), runner.timeout(), request.key(),
                        "acquire");
            } else {
                CompletableFuture<BatchReply> first = cast(pending.reply());
                BatchReply result = runner.await(first,
                        () -> runner.sendBatch(List.of(pending.call()), replicas, replicaTimeout, true),
                        runner.timeout().plus(replicaTimeout), request.key(), "acquire");
                reply = cast(result.replies().get(0));
                synced = result.syncedReplicas();
            }
        } catch (LockBackendException e) {
            cancelAsync(keys, request.owner(), request.lease());
            throw e;
        }
        Attempt attempt = toAttempt(reply, request, keys, pending.requestedAt());
        if (attempt.isGranted() && synced < replicas) {
            cancelAsync(keys, request.owner(), request.lease());
            throw new LockBackendException("Backend 'redis' (" + runner.where() + ") granted lock '"
                    + ScriptRunner.abbreviate(request.key()) + "' but only " + synced + " of the required " + replicas
                    + " replica(s) acknowledged it within " + replicaTimeout.toMillis() + " ms, so the grant was "
                    + "withdrawn. Check replication (INFO replication), raise replicaTimeout or lower waitForReplicas.",
                    request.key(), "redis", null);
        }
        boolean refused = !attempt.isGranted();
        return new Answer(attempt, refused && reply.size() > 2 && ((Number) reply.get(2)).longValue() == 1,
                refused && reply.size() > 3 ? ((Number) reply.get(3)).longValue() : Long.MAX_VALUE);
    }

    /**
     * Waits (at most the operation timeout) until a started attempt has been answered.
     *
     * @return true if the server answered it; false if it failed or no answer came in time (it
     *         may then still run on the server, later)
     */
    public boolean settle(Pending pending, String key) {
        try {
            runner.await(pending.reply(), runner.timeout(), key, "acquire");
            return true;
        } catch (LockBackendException e) {
            return false;
        }
    }

    /**
     * Gives back whatever an attempt nobody will read may take: once it has been answered
     * (or failed), {@link #cancelAsync cancels} it: an owner-checked release (in fair mode also
     * leaving the queue) and the owner's cancelled marker, in case a failed attempt still arrives.
     */
    public void abandon(Pending pending, RedisKeys keys, LockRequest request) {
        pending.reply().whenComplete((reply, failure) -> cancelAsync(keys, request.owner(), request.lease()));
    }

    /**
     * Takes every request or none ({@code LockBackend.tryAcquireAll}): one {@link Scripts#ACQUIRE_ALL}
     * call per cluster slot (one in all on a single server or Sentinel group), slots in the order of
     * their first request, each sent once the one before it granted. A refused slot took nothing; the
     * slots granted before it are released (waiting for the server's first answer) and the answer is
     * empty. A call that failed or got no answer in time is cancelled, with every slot before it
     * ({@link #cancelAsync}: a late arrival is refused), and its failure thrown.
     *
     * @return the grants in request order, empty if a key was busy, or {@code null} where this
     *         deployment sends no batch: fair mode (its waiters queue per key) and
     *         {@code waitForReplicas} (each write is followed by {@code WAIT})
     * @throws LockBackendException if a call failed or timed out, or the release of the slots taken
     *                              before a busy one was not confirmed (it is retried in the background)
     */
    public List<Grant> acquireAll(List<LockRequest> requests) {
        if (fair || replicas > 0 || requests.isEmpty()) {
            return null;
        }
        int n = requests.size();
        String first = requests.get(0).key();
        runner.ensureReady(first);
        RedisKeys[] names = new RedisKeys[n];
        Map<Integer, List<Integer>> slots = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            names[i] = keys(requests.get(i).key());
            slots.computeIfAbsent(cluster ? names[i].slot() : 0, slot -> new ArrayList<>()).add(i);
        }
        String what = "acquire " + n + " locks together, including";
        Grant[] grants = new Grant[n];
        List<Integer> taken = new ArrayList<>(n);
        for (List<Integer> slot : slots.values()) {
            ScriptCall call = acquireAllCall(slot, requests, names);
            long requestedAt = System.nanoTime();
            List<Object> reply;
            try {
                reply = runner.await(runner.send(call, false), () -> runner.send(call, true), runner.timeout(),
                        requests.get(slot.get(0)).key(), what);
            } catch (LockBackendException e) {
                taken.addAll(slot);
                for (int i : taken) {
                    cancelAsync(names[i], requests.get(i).owner(), requests.get(i).lease());
                }
                throw e;
            }
            if (((Number) reply.get(0)).longValue() != 1) {
                giveBack(taken, requests, names);
                return List.of();
            }
            for (int j = 0; j < slot.size(); j++) {
                int i = slot.get(j);
                grants[i] = grant(requests.get(i), names[i], ((Number) reply.get(j + 1)).longValue(), requestedAt);
                taken.add(i);
            }
        }
        return List.of(grants);
    }

    private ScriptCall acquireAllCall(List<Integer> slot, List<LockRequest> requests, RedisKeys[] names) {
        List<Object> keys = new ArrayList<>(slot.size() * 5);
        Object[] args = new Object[slot.size() + 3];
        StringBuilder modes = new StringBuilder(slot.size());
        for (int j = 0; j < slot.size(); j++) {
            LockRequest request = requests.get(slot.get(j));
            RedisKeys k = names[slot.get(j)];
            keys.add(k.lock());
            keys.add(k.fence());
            keys.add(k.cancelled(request.owner()));
            keys.add(k.readers());
            keys.add(k.writers());
            modes.append(request.shared() ? 'S' : 'X');
            args[j + 3] = request.owner();
        }
        args[0] = millis(requests.get(0).lease());
        args[1] = clock;
        args[2] = modes.toString();
        return ScriptCall.of(Scripts.ACQUIRE_ALL, ScriptReturn.LIST, keys, args);
    }

    /**
     * Releases the grants of the slots taken before a busy one, all sent at once; each is retried in
     * the background until confirmed, and this waits for the first answers (the operation timeout).
     */
    private void giveBack(List<Integer> taken, List<LockRequest> requests, RedisKeys[] names) {
        List<CompletableFuture<Long>> releases = new ArrayList<>(taken.size());
        for (int i : taken) {
            LockRequest request = requests.get(i);
            releases.add(CleanUps.send(runner, releaseCall(names[i], request.owner(), RELEASE, request.shared()),
                    deadline(horizon(request.lease()))));
        }
        for (int r = 0; r < releases.size(); r++) {
            String key = requests.get(taken.get(r)).key();
            try {
                runner.await(releases.get(r), runner.timeout(), key, "give back, after another key was busy,");
            } catch (LockBackendException e) {
                throw new LockBackendException("Backend 'redis' (" + runner.where() + ") took lock '"
                        + ScriptRunner.abbreviate(key) + "' as part of a multi-key request whose other part was busy, "
                        + "and could not confirm its release: " + e.getMessage() + " The release is retried in the "
                        + "background; the hold ends with its lease (" + requests.get(0).lease().toMillis()
                        + " ms) at the latest. Check that the server is reachable.", key, "redis", e);
            }
        }
    }

    /** Renews every grant: one script call per slot, pipelined per node. Returns the grants that are gone. */
    public Set<Grant> renewAll(Collection<Grant> grants, Duration lease) {
        if (grants.isEmpty()) {
            return Set.of();
        }
        Map<Integer, List<Grant>> groups = new LinkedHashMap<>();
        for (Grant grant : grants) {
            int group = cluster ? ReadHold.keysOf(grant.state()).slot() : 0;
            groups.computeIfAbsent(group, g -> new ArrayList<>()).add(grant);
        }
        List<List<Grant>> ordered = new ArrayList<>(groups.values());
        List<List<Object>> replies = new ArrayList<>(ordered.size());
        String key = grants.isEmpty() ? null : grants.iterator().next().key();
        String what = grants.size() == 1 ? "renew" : "renew " + grants.size() + " locks including";
        if (ordered.size() == 1 && replicas == 0) {
            replies.add(runner.call(renewCall(ordered.get(0), lease), key, what));
        } else {
            List<ScriptCall> calls = ordered.stream().map(g -> renewCall(g, lease)).toList();
            BatchReply result = runner.batch(calls, replicas, replicaTimeout, key, what);
            if (result.syncedReplicas() < replicas) {
                throw new LockBackendException("Backend 'redis' (" + runner.where() + ") renewed lock(s) such as '"
                        + ScriptRunner.abbreviate(key) + "' but only " + result.syncedReplicas() + " of the required "
                        + replicas + " replica(s) acknowledged within " + replicaTimeout.toMillis() + " ms; the leases "
                        + "are not counted as renewed. Check replication (INFO replication).", key, "redis", null);
            }
            result.replies().forEach(r -> replies.add(cast(r)));
        }
        Set<Grant> gone = new HashSet<>();
        for (int g = 0; g < ordered.size(); g++) {
            List<Grant> group = ordered.get(g);
            for (int i = 0; i < group.size(); i++) {
                if (((Number) replies.get(g).get(i)).longValue() != 1) {
                    gone.add(group.get(i));
                }
            }
        }
        return gone;
    }

    public boolean release(Grant grant) {
        Object state = grant.state();
        Long released = runner.call(releaseHoldCall(ReadHold.keysOf(state), grant.owner(), ReadHold.isShared(state)),
                grant.key(), "release");
        return released == 1;
    }

    /**
     * {@link Scripts#SET_PERMITS}: the stored count of the semaphore key {@code key}, while permits are
     * held, and a wake-up of its waiters. One script call.
     */
    public void setPermits(String key, int limit) {
        RedisKeys keys = keys(key);
        runner.ensureReady(key);
        runner.call(ScriptCall.of(Scripts.SET_PERMITS, ScriptReturn.LONG, List.of(keys.readers()),
                Integer.toString(limit), keys.channel()), key, "setPermits");
    }

    // ---- inspection ---------------------------------------------------------------------------

    /** The one read of {@link Scripts#INSPECT}: every name of the key it reads lives in the key's slot. */
    private ScriptCall inspectCall(RedisKeys keys) {
        return ScriptCall.of(Scripts.INSPECT, ScriptReturn.LIST,
                List.of(keys.lock(), keys.fence(), keys.readers(), keys.queue(), keys.waiters()), fair ? "1" : "0");
    }

    /** Starts {@link Scripts#INSPECT} of {@code key}; the reply is read by {@link #toKeyState}. */
    public CompletableFuture<List<Object>> inspectAsync(RedisKeys keys) {
        return runner.callAsync(inspectCall(keys));
    }

    /** What the server keeps for {@code key}, owners as stored (one script call, read-only). */
    public KeyState inspect(String key) {
        RedisKeys keys = keys(key);
        runner.ensureReady(key);
        return toKeyState(runner.call(inspectCall(keys), key, "inspect"));
    }

    /** Reads an {@link Scripts#INSPECT} reply: {mode, waiters, owner, remaining-ms, token, ...}. */
    public static KeyState toKeyState(List<Object> reply) {
        String mode = String.valueOf(reply.get(0));
        long waiting = ((Number) reply.get(1)).longValue();
        OptionalInt waiters = waiting < 0 ? OptionalInt.empty() : OptionalInt.of((int) Math.min(waiting, Integer.MAX_VALUE));
        if (mode.equals("F")) {
            return KeyState.free(waiters);
        }
        List<KeyState.Holder> holders = new ArrayList<>((reply.size() - 2) / 3);
        for (int i = 2; i + 2 < reply.size(); i += 3) {
            String token = String.valueOf(reply.get(i + 2));
            holders.add(new KeyState.Holder(String.valueOf(reply.get(i)),
                    token.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(token)),
                    Optional.of(Duration.ofMillis(((Number) reply.get(i + 1)).longValue()))));
        }
        return new KeyState(mode.equals("X") ? LockMode.EXCLUSIVE : LockMode.SHARED, holders, waiters);
    }

    public CompletableFuture<Long> pingAsync() {
        return runner.callAsync(ScriptCall.of(Scripts.PING, ScriptReturn.LONG, List.of()));
    }

    public void ping() {
        runner.call(ScriptCall.of(Scripts.PING, ScriptReturn.LONG, List.of()), null, "answer a ping");
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object reply) {
        return (T) reply;
    }
}
