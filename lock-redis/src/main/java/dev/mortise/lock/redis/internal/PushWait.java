package dev.mortise.lock.redis.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Waiting for a Redis lock with pub/sub instead of polling. The waiter joins its key's
 * release channel ({@link ReleaseChannels}: one subscription per key and backend, shared by
 * its waiters and kept briefly after the last one) and makes sure every release published
 * after its last busy attempt reaches it:
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
 * ({@link ReleaseWaiter}), so the waiting thread wakes once, with the answer.
 *
 * <p>In fair mode the retries also queue the waiter on the server and refresh its entry at
 * least once per {@link #HEARTBEAT}; a release hands the lock over inside its script and
 * the message carries the token, so the waiter is granted without another round trip. A
 * waiter that gives up (timeout, interrupt, failure) leaves the queue, passing on a lock
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
 * TTL at most. A waiter that gives up withdraws its marker ({@link LockCommands#unmark}). Stateless;
 * one call per waiting thread.
 */
public final class PushWait {

    /** Longest sleep of a fair waiter between refreshes of its queue entry. */
    static final Duration HEARTBEAT = Duration.ofSeconds(1);

    private PushWait() {
    }

    public static Optional<Grant> acquire(LockCommands commands, LockRequest request, Duration wait)
            throws InterruptedException {
        long deadline = Deadlines.after(System.nanoTime(), wait);
        RedisKeys keys = commands.keys(request.key());
        boolean fair = commands.fair();
        // Default mode: an exclusive waiter's every attempt marks it as a waiting writer. A permit
        // request's first attempt checks its count against the stored one; its retries (sent with
        // waiting = true) follow the stored count, so a setPermits raise lets them in.
        boolean marks = !fair && !request.shared() && Deadlines.left(deadline) > 0;
        // Retries of a waiting request: fair mode queues them, a writer marks, a permit request follows the stored count.
        boolean waiting = fair || marks || request.takesPermits();
        Duration entryTtl = commands.waiterTtl();
        ReleaseChannels channels = commands.channels();
        ReleaseWaiter waiter = null;
        boolean queued = false;
        boolean granted = false;
        boolean failed = false;
        boolean marked = false;
        try {
            if (!channels.isEmpty()) {
                waiter = waiter(commands, request, keys, entryTtl, marks, deadline);
                if (!channels.joinIfSubscribed(waiter)) {
                    waiter = null;
                }
            }
            commands.runner().ensureReady(request.key());
            LockCommands.Pending first = commands.start(request, keys, marks, entryTtl, deadline);
            marked = marks; // a marking attempt is on its way: from here on, withdraw it on giving up
            LockCommands.Answer answer = commands.answer(first, request, keys);
            Attempt attempt = answer.attempt();
            if (attempt.isGranted() || Deadlines.left(deadline) == 0) {
                granted = attempt.isGranted();
                return attempt.grant();
            }
            // Local validity of a hand-off counts from the last attempt the server answered busy, and
            // only a hand-off made after that refusal (a token above the counter it reported) counts.
            long busySentAt = first.requestedAt();
            long busyFence = answer.fence();
            if (waiter == null || fair) {
                if (waiter == null) {
                    waiter = waiter(commands, request, keys, entryTtl, marks, deadline);
                    channels.join(waiter);
                    waiter.awaitSubscribed(commands.runner());
                }
                queued |= fair;
                waiter.beforeAttempt();
                LockCommands.Pending retry = commands.start(request, keys, waiting, entryTtl, deadline);
                answer = commands.answer(retry, request, keys);
                attempt = answer.attempt();
                busySentAt = retry.requestedAt();
                busyFence = answer.fence();
            }
            while (true) {
                if (attempt.isGranted()) {
                    granted = true;
                    return attempt.grant();
                }
                long left = Deadlines.left(deadline);
                if (left == 0) {
                    return Optional.empty();
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock '" + request.key() + "'");
                }
                long sleep = Math.min(left, attempt.holderRemaining().map(Duration::toNanos).orElse(left)
                        + TimeUnit.MILLISECONDS.toNanos(1));
                if (fair || (marks && answer.readersHold())) {
                    sleep = Math.min(sleep, HEARTBEAT.toNanos());
                }
                ReleaseWaiter.News news = waiter.await(sleep);
                if (news == ReleaseWaiter.News.HANDED) {
                    long token = waiter.handedToken();
                    // A retry still on its way must land before we return: landing after our
                    // release, it would queue this finished owner again, and a later release
                    // would hand the lock to no one. Landing now, it only finds us holding.
                    LockCommands.Pending late = waiter.takeRetry();
                    if (late != null && !commands.settle(late, request.key())) {
                        // Unanswered, it may still land after our release and queue us again:
                        // give the lock on now (the cancel also refuses that retry) and fail.
                        commands.cancelAsync(keys, request.owner(), request.lease());
                        throw new LockBackendException("Backend 'redis' (" + commands.runner().where()
                                + ") handed lock '" + request.key() + "' over, but an earlier retry got no answer "
                                + "within the operation timeout (" + commands.runner().timeout().toMillis()
                                + " ms), so the lock was given on rather than kept with a request of unknown "
                                + "fate in flight. Check the server's latency, or raise operationTimeout.",
                                request.key(), "redis", null);
                    }
                    if (late != null) {
                        LockCommands.Answer landed = commands.answer(late, request, keys);
                        if (landed.attempt().isGranted()) {
                            granted = true; // it found the handed lock ours: a grant of its own
                            return landed.attempt().grant();
                        }
                        busySentAt = late.requestedAt();
                        busyFence = landed.fence();
                    }
                    if (token > busyFence && !commands.waitsForReplicas()) {
                        // Handed over after our last refusal was processed, with the lease set
                        // then: counting validity from that refused attempt is safe.
                        granted = true;
                        return Optional.of(LockCommands.grant(request, keys, token, busySentAt));
                    }
                    // Handed over before a refusal we have since had (the message came late: a
                    // paused process, a slow connection): that lease ended unused. Ask again. Also
                    // when grants need replicas (fair mode hands over inside the release, which has
                    // no WAIT): the ask finds the lock ours and its own WAIT covers the hand-off.
                    waiter.discardHandOff();
                    news = ReleaseWaiter.News.TRY_AGAIN;
                }
                LockCommands.Pending next;
                if (news == ReleaseWaiter.News.RETRIED) {
                    next = waiter.takeRetry();
                } else {
                    waiter.beforeAttempt();
                    queued |= fair;
                    next = commands.start(request, keys, waiting, entryTtl, deadline);
                }
                answer = commands.answer(next, request, keys);
                attempt = answer.attempt();
                if (!attempt.isGranted()) {
                    busySentAt = next.requestedAt();
                    busyFence = answer.fence();
                }
            }
        } catch (RuntimeException e) {
            failed = true;
            throw e;
        } finally {
            if (waiter != null) {
                waiter.close(granted);
            }
            if (queued && !granted) {
                commands.leave(keys, request);
            }
            if (marked && !granted) {
                // After a failure the server may not answer either: the caller gets the failure
                // within its operation timeout and the withdrawal goes on in the background.
                commands.unmark(keys, request, !failed);
            }
        }
    }

    private static ReleaseWaiter waiter(LockCommands commands, LockRequest request, RedisKeys keys, Duration entryTtl,
                                        boolean marks, long deadline) {
        boolean fair = commands.fair();
        boolean handed = fair || (marks && commands.handsOver());
        return new ReleaseWaiter(request.key(), keys, handed ? request.owner() : null,
                () -> commands.start(request, keys, fair || marks || request.takesPermits(), entryTtl, deadline),
                orphan -> commands.abandon(orphan, keys, request));
    }
}
