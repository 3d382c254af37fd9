package dev.mortise.lock.redis.internal;

import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Waiting for a Redis lock with pub/sub instead of polling. Subscribes to the lock's
 * release channel (confirmed by the server), then retries, so a release between "try
 * failed" and "subscribed" is seen by the retry; then sleeps until a release message
 * arrives or the holder's lease runs out (expiry publishes nothing), and retries.
 *
 * <p>In fair mode the retry also queues the waiter on the server and refreshes its entry
 * at least once per {@link #HEARTBEAT}; a release hands the lock over inside its script and
 * the message carries the token, so the waiter is granted without another round trip. A
 * waiter that gives up (timeout, interrupt, failure) leaves the queue, passing on a lock
 * handed to it meanwhile. Stateless; one call per waiting thread.
 */
public final class PushWait {

    /** Longest sleep of a fair waiter between refreshes of its queue entry. */
    static final Duration HEARTBEAT = Duration.ofSeconds(1);

    private PushWait() {
    }

    public static Optional<Grant> acquire(LockCommands commands, LockRequest request, Duration wait)
            throws InterruptedException {
        long deadline = Deadlines.after(System.nanoTime(), wait);
        Attempt attempt = commands.acquire(request);
        if (attempt.isGranted() || Deadlines.left(deadline) == 0) {
            return attempt.grant();
        }
        RedisKeys keys = commands.keys(request.key());
        // A queue entry outlives a few missed heartbeats and one slow round trip, no more.
        Duration entryTtl = HEARTBEAT.multipliedBy(3).plus(commands.runner().timeout());
        boolean queued = false;
        boolean granted = false;
        try (ReleaseSubscription released = ReleaseSubscription.open(commands.runner(), keys, request.key(),
                request.owner())) {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock '" + request.key() + "'");
                }
                released.drain();
                long sentAt = System.nanoTime();
                queued |= commands.fair();
                attempt = commands.acquire(request, commands.fair(), entryTtl);
                if (attempt.isGranted()) {
                    granted = true;
                    return attempt.grant();
                }
                long left = Deadlines.left(deadline);
                if (left == 0) {
                    return Optional.empty();
                }
                long sleep = Math.min(left, attempt.holderRemaining().map(Duration::toNanos).orElse(left)
                        + TimeUnit.MILLISECONDS.toNanos(1));
                if (commands.fair()) {
                    sleep = Math.min(sleep, HEARTBEAT.toNanos());
                }
                released.await(Duration.ofNanos(sleep));
                Long token = released.handedToken();
                if (token != null) {
                    // The lease was set when the lock was handed over, after our last busy
                    // attempt was processed: counting validity from that attempt is safe.
                    granted = true;
                    return Optional.of(new Grant(request.key(), request.owner(), token, sentAt, keys));
                }
            }
        } finally {
            if (queued && !granted) {
                commands.leave(keys, request.owner());
            }
        }
    }
}
