package dev.mortise.lock.redis.internal.redlock;

import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackoffPolling;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Redlock's wait: polls with backoff (as {@link BackoffPolling}). An exclusive request that waits
 * also leaves a writer-waiting marker on every node after each refused attempt (one id for the whole
 * wait), so that a node refuses new shares meanwhile: a reader gets no majority while a majority of
 * nodes carry markers, and waits. The markers lapse with the wait; they are withdrawn on every node
 * when the wait ends, granted or not. Thread-safe; one call per waiting thread.
 */
public final class RedlockWait {

    private final RedlockNodes nodes;
    private final RedlockAttempts attempts;

    public RedlockWait(RedlockNodes nodes, RedlockAttempts attempts) {
        this.nodes = nodes;
        this.attempts = attempts;
    }

    /**
     * @param backend the Redlock backend, whose {@code tryAcquire} a shared or non-waiting request
     *                polls with {@link BackoffPolling}
     */
    public Optional<Grant> acquire(LockBackend backend, LockRequest request, Duration wait)
            throws InterruptedException {
        long deadline = Deadlines.after(System.nanoTime(), wait);
        if (request.shared() || Deadlines.left(deadline) == 0) {
            return BackoffPolling.acquire(backend, request, wait);
        }
        RedisKeys keys = nodes.keys(request.key());
        String marker = request.owner() + "/w" + nodes.nextAttempt();
        boolean marked = false;
        boolean granted = false;
        boolean failed = false;
        long ceiling = BackoffPolling.INITIAL_NANOS;
        try {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock '" + request.key() + "'");
                }
                Attempt attempt = attempts.attempt(request);
                if (attempt.isGranted()) {
                    granted = true;
                    return attempt.grant();
                }
                long left = Deadlines.left(deadline);
                if (left == 0) {
                    return Optional.empty();
                }
                marked = true;
                nodes.gather(n -> RedlockCalls.mark(n, keys, marker, Duration.ofNanos(left)));
                long sleep = Math.min(ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1), left);
                sleep = Math.min(sleep, attempt.holderRemaining().map(Duration::toNanos).orElse(sleep)
                        + TimeUnit.MILLISECONDS.toNanos(1));
                TimeUnit.NANOSECONDS.sleep(Math.max(0, sleep));
                ceiling = Math.min(BackoffPolling.MAX_NANOS, ceiling * 2);
            }
        } catch (RuntimeException e) {
            failed = true;
            throw e;
        } finally {
            if (marked) {
                withdraw(keys, marker, request.lease(), !granted && !failed);
            }
        }
    }

    /**
     * Withdraws the markers on every node. Granted: at once in the background (the lock itself keeps
     * readers out now). Given up ({@code await}): one node timeout for the round (none after a failure:
     * the nodes may not answer either), then in the background until the markers have lapsed.
     */
    private void withdraw(RedisKeys keys, String marker, Duration lease, boolean await) {
        List<CompletableFuture<Long>> withdrawn = nodes.all().stream()
                .map(n -> RedlockCalls.unmark(n, keys, marker, lease)).toList();
        if (await) {
            NodeReplies.gather(withdrawn, f -> f, nodes.nodeTimeout());
        }
    }
}
