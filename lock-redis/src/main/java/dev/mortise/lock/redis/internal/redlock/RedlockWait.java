package dev.mortise.lock.redis.internal.redlock;

import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackoffPolling;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.WaitStep;
import dev.mortise.lock.spi.WaitSteps;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One Redlock wait, as {@link WaitSteps} (run blocking by {@code acquire}, without a thread between
 * steps by {@code acquireAsync}): polls with backoff (as {@link BackoffPolling}: exponential, full
 * jitter, each sleep bounded by the holders' remaining lease and the deadline). An exclusive request
 * that waits also leaves a writer-waiting marker on every node after each refused attempt (one id for
 * the whole wait), so that a node refuses new shares meanwhile: a reader gets no majority while a
 * majority of nodes carry markers, and waits. The markers lapse with the wait; they are withdrawn on
 * every node when the wait ends, granted or not. Shared requests leave nothing between attempts.
 * One object per wait; its steps are called one at a time.
 */
public final class RedlockWait implements WaitSteps {

    private final RedlockNodes nodes;
    private final RedlockAttempts attempts;
    private final LockRequest request;
    private final long deadline;
    /** An exclusive request that may wait marks itself as a waiting writer between attempts. */
    private final boolean marks;
    private final RedisKeys keys;
    private final String marker;
    private boolean marked;
    private long ceiling = BackoffPolling.INITIAL_NANOS;

    public RedlockWait(RedlockNodes nodes, RedlockAttempts attempts, LockRequest request, Duration wait) {
        this.nodes = nodes;
        this.attempts = attempts;
        this.request = request;
        this.deadline = Deadlines.after(System.nanoTime(), wait);
        this.marks = !request.shared() && Deadlines.left(deadline) > 0;
        this.keys = marks ? nodes.keys(request.key()) : null;
        this.marker = marks ? request.owner() + "/w" + nodes.nextAttempt() : null;
    }

    /** One attempt on every node; refused, the marker round (an exclusive request) and a backoff sleep. */
    @Override
    public WaitStep next() {
        Attempt attempt = attempts.attempt(request);
        if (attempt.isGranted()) {
            return WaitStep.granted(attempt.grant().get());
        }
        long left = Deadlines.left(deadline);
        if (left == 0) {
            return WaitStep.ranOut();
        }
        if (marks) {
            marked = true;
            nodes.gather(n -> RedlockCalls.mark(n, keys, marker, Duration.ofNanos(left)));
        }
        long sleep = Math.min(ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1), left);
        sleep = Math.min(sleep, attempt.holderRemaining().map(Duration::toNanos).orElse(sleep)
                + TimeUnit.MILLISECONDS.toNanos(1));
        ceiling = Math.min(BackoffPolling.MAX_NANOS, ceiling * 2);
        return WaitStep.sleep(Math.max(0, sleep));
    }

    /**
     * Withdraws the markers on every node. Granted: at once in the background (the lock itself keeps
     * readers out now). Given up (the deadline, an interrupt, a cancel): one node timeout for the round;
     * after a failure none (the nodes may not answer either); then in the background until the markers
     * have lapsed.
     */
    @Override
    public void end(boolean granted, Throwable failure) {
        if (!marked) {
            return;
        }
        boolean failed = failure instanceof RuntimeException && !(failure instanceof CancellationException);
        List<CompletableFuture<Long>> withdrawn = nodes.all().stream()
                .map(n -> RedlockCalls.unmark(n, keys, marker, request.lease())).toList();
        if (!granted && !failed) {
            NodeReplies.gather(withdrawn, f -> f, nodes.nodeTimeout());
        }
    }
}
