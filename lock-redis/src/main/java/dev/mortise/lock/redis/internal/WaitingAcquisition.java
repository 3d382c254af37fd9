package dev.mortise.lock.redis.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.WaitStep;
import dev.mortise.lock.spi.WaitSteps;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One waiting acquisition of a Redis lock, which waits with pub/sub instead of polling: it asks,
 * awaits a release between refusals, and withdraws whatever it left on the server if it gives up.
 * The waiter joins its key's release channel ({@link ReleaseChannels}: one subscription per key and
 * backend, shared by its waiters and kept briefly after the last one) and makes sure every release
 * published after its last busy attempt reaches it:
 *
 * <ul>
 *   <li>if the key's subscription is already confirmed, the waiter joins it <em>before</em>
 *       its first attempt, and a busy answer is followed directly by the wait;</li>
 *   <li>otherwise it subscribes after the busy first attempt, waits for the server's
 *       confirmation and tries again, so a release between "try failed" and "subscribed"
 *       is seen by that retry.</li>
 * </ul>
 *
 * <p>It then sleeps until a release message arrives or the holder's lease runs out (expiry
 * publishes nothing), and retries; on a release the message thread sends the retry itself
 * ({@link ReleaseWaiter}), so the waiter wakes once, with the answer.
 *
 * <p>In fair mode the retries also queue the waiter on the server and refresh its entry at
 * least once per {@link #HEARTBEAT}; a release hands the lock over inside its script and
 * the message carries the token, so the waiter is granted without another round trip. A
 * waiter that gives up (timeout, interrupt, cancel, failure) leaves the queue, passing on a lock
 * handed to it meanwhile, and gives back whatever an unanswered retry may take.
 *
 * <p>A hand-off message can come late (a paused process, a slow pub/sub connection): by then the
 * handed lease may have run out and the waiter's own timer may have had a refusal since. Each refusal
 * carries the key's fence counter, and a hand-off counts only if its token is above the counter of the
 * last refusal (it was made after it); otherwise the waiter asks again.
 *
 * <p>In the default mode (without {@code waitForReplicas}) a waiting writer's attempts also offer to be
 * handed the lock, and a release hands it to a writer whose offer is fresh (made within a third of its
 * lease, at most {@link #HEARTBEAT}) the same way, so a contended hand-off costs the release and its
 * message; other waiters ignore a hand-off, and a writer that gives up releases what was handed to it.
 *
 * <p>In the default mode an exclusive waiter's attempts leave a "writer waiting" marker on the
 * server, which refuses new shared requests (no writer starvation) and lapses with the wait. It
 * lives until the blocking hold's lease ends plus the waiter TTL, so a waiter that sleeps until a
 * release or that lease's end refreshes it in time; while readers refuse it, the waiter refreshes
 * it at least once per {@link #HEARTBEAT}, so that a crashed writer holds readers back for the waiter
 * TTL at most. A waiter that gives up withdraws its marker ({@code unmark.lua}).
 *
 * <p>The wait is written as {@link WaitSteps}: the blocking {@code acquire} runs them with
 * {@link dev.mortise.lock.spi.WaitDriver#await} on the caller's thread, {@code acquireAsync} with
 * {@link dev.mortise.lock.spi.WaitDriver#start} on the shared asynchronous threads, holding none while
 * it sleeps. Every wait for the server to act is a sleep on a future that the server's news
 * completes: the first connect of a lazily connecting client, the subscription's confirmation, a
 * release or hand-off message ({@link ReleaseWaiter#sleep()}), the reply to a retry the message thread
 * sent. A step blocks only on the reply to its own attempt, within the operation timeout.
 *
 * <p>One object per wait; the driver calls its steps one at a time ({@link WaitSteps}), and its
 * {@link ReleaseWaiter} meets the message thread.
 */
public final class WaitingAcquisition implements WaitSteps {

    /** Longest sleep of a fair waiter between refreshes of its queue entry. */
    static final Duration HEARTBEAT = Duration.ofSeconds(1);

    /** Where the next step takes up the wait. */
    private enum Phase { START, CONNECTED, SUBSCRIBED, WOKEN }

    private final LockCommands commands;
    private final Deployment deployment;
    private final ScriptRunner runner;
    private final LockRequest request;
    private final RedisKeys keys;
    private final long deadline;
    private final boolean fair;
    /**
     * Default mode: an exclusive waiter's every attempt marks it as a waiting writer. A permit
     * request's first attempt checks its count against the stored one; its retries (sent with
     * {@link #waiting}) follow the stored count, so a setPermits raise lets them in.
     */
    private final boolean marks;
    /** Retries of a waiting request: fair mode queues them, a writer marks, a permit request follows the stored count. */
    private final boolean waiting;
    private final Duration entryTtl;
    private Phase phase = Phase.START;
    private ReleaseWaiter waiter;
    private boolean queued;
    private boolean marked;
    /** The answer to the last attempt the steps read. */
    private AttemptAnswer answer;
    /**
     * Local validity of a hand-off counts from the last attempt the server answered busy, and
     * only a hand-off made after that refusal (a token above the counter it reported) counts.
     */
    private long busySentAt;
    private long busyFence;

    public WaitingAcquisition(LockCommands commands, LockRequest request, Duration wait) {
        this.deadline = Deadlines.after(System.nanoTime(), wait);
        this.commands = commands;
        this.deployment = commands.deployment();
        this.runner = deployment.runner();
        this.request = request;
        this.keys = deployment.keys(request.key());
        this.fair = deployment.fair();
        this.marks = !fair && !request.shared() && Deadlines.left(deadline) > 0;
        this.waiting = fair || marks || request.takesPermits();
        this.entryTtl = deployment.waiterTtl();
    }

    @Override
    public WaitStep next() {
        return switch (phase) {
            case START -> start();
            case CONNECTED -> firstAttempt();
            case SUBSCRIBED -> {
                waiter.checkSubscribed(runner);
                askAgain();
                yield decide();
            }
            case WOKEN -> woken();
        };
    }

    /**
     * Joins the key's subscription if it is confirmed already, so that a busy first attempt needs
     * no retry; sleeps until a lazily connecting client has connected (at most the connect timeout).
     */
    private WaitStep start() {
        ReleaseChannels channels = commands.channels();
        if (!channels.isEmpty()) {
            waiter = newWaiter();
            if (!channels.joinIfSubscribed(waiter)) {
                waiter = null;
            }
        }
        phase = Phase.CONNECTED;
        CompletableFuture<?> connecting = runner.pendingConnect(request.key());
        if (connecting != null && !connecting.isDone()) {
            return WaitStep.sleep(connecting, runner.connectTimeout().toNanos());
        }
        return firstAttempt();
    }

    /**
     * The first attempt. Busy without a confirmed subscription: subscribes and sleeps until the
     * server confirms it, then asks again, so a release between the refusal and the subscription
     * is seen by that retry. In fair mode a busy waiter asks again at once, to queue.
     */
    private WaitStep firstAttempt() {
        runner.ensureReady(request.key(), Duration.ZERO); // connected by now, or the connect timed out
        PendingAttempt first = commands.attempts().start(request, keys, marks, entryTtl, deadline);
        marked = marks; // a marking attempt is on its way: from here on, withdraw it on giving up
        read(first);
        Attempt attempt = answer.attempt();
        if (attempt.isGranted() || Deadlines.left(deadline) == 0) {
            return attempt.isGranted() ? WaitStep.granted(attempt.grant().get()) : WaitStep.ranOut();
        }
        if (waiter == null) {
            waiter = newWaiter();
            commands.channels().join(waiter);
            phase = Phase.SUBSCRIBED;
            return WaitStep.sleep(waiter.subscribed(), runner.timeout().toNanos());
        }
        if (fair) {
            askAgain();
        }
        return decide();
    }

    /** The answer read last decides: granted, ran out, or a sleep until news or the holder's lease ends. */
    private WaitStep decide() {
        Attempt attempt = answer.attempt();
        if (attempt.isGranted()) {
            return WaitStep.granted(attempt.grant().get());
        }
        long left = Deadlines.left(deadline);
        if (left == 0) {
            return WaitStep.ranOut();
        }
        phase = Phase.WOKEN;
        return WaitStep.sleep(waiter.sleep(), sleepNanos(attempt, left));
    }

    /** After a sleep: takes a hand-off, reads the retry the message thread sent, or asks again. */
    private WaitStep woken() {
        ReleaseWaiter.News news = waiter.awake();
        if (news == ReleaseWaiter.News.SENDING) {
            return WaitStep.sleep(waiter.sending(), runner.timeout().toNanos());
        }
        if (news == ReleaseWaiter.News.HANDED) {
            Optional<Grant> handed = handedOver();
            if (handed.isPresent()) {
                return WaitStep.granted(handed.get());
            }
            news = ReleaseWaiter.News.TRY_AGAIN;
        }
        if (news == ReleaseWaiter.News.RETRIED) {
            read(waiter.takeRetry());
        } else {
            askAgain();
        }
        return decide();
    }

    /** Sends a retry from the steps (fair mode: queued from here on) and reads it. */
    private void askAgain() {
        waiter.beforeAttempt();
        queued |= fair;
        read(commands.attempts().start(request, keys, waiting, entryTtl, deadline));
    }

    /** Reads {@code pending}'s answer; a refusal becomes the one a later hand-off is measured against. */
    private void read(PendingAttempt pending) {
        answer = commands.attempts().answer(pending, request, keys);
        if (!answer.attempt().isGranted()) {
            busySentAt = pending.requestedAt();
            busyFence = answer.fence();
        }
    }

    /** Until the holder's lease runs out (or the wait); at most a heartbeat where an entry or marker needs refreshing. */
    private long sleepNanos(Attempt attempt, long left) {
        long sleep = Math.min(left, attempt.holderRemaining().map(Duration::toNanos).orElse(left)
                + TimeUnit.MILLISECONDS.toNanos(1));
        if (fair || (marks && answer.readersHold())) {
            sleep = Math.min(sleep, HEARTBEAT.toNanos());
        }
        return sleep;
    }

    /**
     * A release handed the lock to this owner: the grant, or empty if the hand-off is stale (the
     * waiter then asks again).
     */
    private Optional<Grant> handedOver() {
        long token = waiter.handedToken();
        // A retry still on its way must land before we return: landing after our
        // release, it would queue this finished owner again, and a later release
        // would hand the lock to no one. Landing now, it only finds us holding.
        PendingAttempt late = waiter.takeRetry();
        if (late != null && !commands.attempts().settle(late, request.key())) {
            // Unanswered, it may still land after our release and queue us again:
            // give the lock on now (the cancel also refuses that retry) and fail.
            commands.holds().cancelAsync(keys, request.owner(), request.lease());
            throw new LockBackendException("Backend 'redis' (" + runner.where() + ") handed lock '" + request.key()
                    + "' over, but an earlier retry got no answer within the operation timeout ("
                    + runner.timeout().toMillis() + " ms), so the lock was given on rather than kept with a request "
                    + "of unknown fate in flight. Check the server's latency, or raise operationTimeout.",
                    request.key(), "redis", null);
        }
        if (late != null) {
            AttemptAnswer landed = commands.attempts().answer(late, request, keys);
            if (landed.attempt().isGranted()) {
                return landed.attempt().grant(); // it found the handed lock ours: a grant of its own
            }
            busySentAt = late.requestedAt();
            busyFence = landed.fence();
        }
        if (token > busyFence && !deployment.waitsForReplicas()) {
            // Handed over after our last refusal was processed, with the lease set
            // then: counting validity from that refused attempt is safe.
            return Optional.of(Attempts.grant(request, keys, token, busySentAt));
        }
        // Handed over before a refusal we have since had (the message came late: a
        // paused process, a slow connection): that lease ended unused. Ask again. Also
        // when grants need replicas (fair mode hands over inside the release, which has
        // no WAIT): the ask finds the lock ours and its own WAIT covers the hand-off.
        waiter.discardHandOff();
        return Optional.empty();
    }

    private ReleaseWaiter newWaiter() {
        boolean handed = fair || (marks && deployment.handsOver());
        return new ReleaseWaiter(request.key(), keys, handed ? request.owner() : null,
                () -> commands.attempts().start(request, keys, waiting, entryTtl, deadline), this::abandon);
    }

    /**
     * The wait ended: leaves the release channel, and without a grant leaves the queue (fair mode)
     * and withdraws the writer marker (default mode), whatever ended it: the deadline, an interrupt,
     * a cancel, a failure. After a failure the server may not answer either: the caller gets the
     * failure within its operation timeout and the marker's withdrawal goes on in the background.
     */
    @Override
    public void end(boolean granted, Throwable failure) {
        // a cancel ends the wait as an interrupt does: the server is fine, the marker's withdrawal awaited
        boolean failed = failure instanceof RuntimeException && !(failure instanceof CancellationException);
        if (waiter != null) {
            waiter.close(granted);
        }
        if (queued && !granted) {
            leaveQueue();
        }
        if (marked && !granted) {
            withdrawMarker(!failed);
        }
    }

    /**
     * Fair mode: removes the queue entry and, if the lock was handed to this waiter meanwhile,
     * releases it to the next waiter. Waits for the server at most the operation timeout; if it does
     * not confirm, the leave is retried in the background until confirmed or until the entry has
     * lapsed and a lock handed to it meanwhile has run out (waiter TTL plus {@link Deployment#horizon}
     * of the lease): a hand-off to a waiter that is gone would hold the lock for a whole lease.
     */
    private void leaveQueue() {
        CompletableFuture<Long> first = CleanUps.send(runner, commands.fair().leave(keys,
                request.owner()), CleanUps.deadlineAfter(entryTtl.plus(deployment.horizon(request.lease()))));
        awaitQuietly(first, "leave the queue of");
    }

    /**
     * Default mode: removes the "writer waiting" marker and the hand-off offer, and releases a lock
     * handed to this waiter meanwhile (telling waiters then, and when the marker was the last, so
     * readers it held back go at once). With {@code await}, waits for the server at most the operation
     * timeout; if it does not confirm, the removal is retried in the background until the marker has
     * lapsed by itself (at most the waiter TTL after the blocking hold's lease).
     */
    private void withdrawMarker(boolean await) {
        CompletableFuture<Long> first = CleanUps.send(runner, commands.exclusive().unmark(keys,
                request.owner()), CleanUps.deadlineAfter(entryTtl.plus(deployment.horizon(request.lease()))));
        if (await) {
            awaitQuietly(first, "withdraw the writer-waiting marker of");
        }
    }

    private void awaitQuietly(CompletableFuture<Long> first, String what) {
        try {
            runner.await(first, runner.timeout(), request.key(), what);
        } catch (RuntimeException e) {
            // retried in the background; the caller is already failing or giving up
        }
    }

    /**
     * Gives back whatever an attempt nobody will read may take (a retry the message thread sent):
     * once it has been answered (or failed), it is cancelled ({@link HoldCommands#cancelAsync}): an
     * owner-checked release (in fair mode also leaving the queue) and the owner's cancelled marker, in
     * case a failed attempt still arrives.
     */
    private void abandon(PendingAttempt orphan) {
        orphan.reply().whenComplete((reply, failure) ->
                commands.holds().cancelAsync(keys, request.owner(), request.lease()));
    }
}
