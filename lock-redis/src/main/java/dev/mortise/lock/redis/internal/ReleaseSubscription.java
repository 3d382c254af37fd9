package dev.mortise.lock.redis.internal;

import org.redisson.api.RTopic;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One waiter's subscription to a lock's release channel. Opened (and confirmed by the
 * server) before the waiter retries, so a release between "try failed" and "subscribed"
 * cannot be missed: either the retry sees the free key or the message arrives after it.
 * Closing removes the listener; Redisson unsubscribes the channel when its last listener
 * goes, so an interrupted or timed-out wait leaves nothing behind. One thread uses it.
 */
public final class ReleaseSubscription implements AutoCloseable {

    private final RTopic topic;
    private final Semaphore released = new Semaphore(0);
    private final CompletableFuture<Integer> listenerId;
    private final String handOffPrefix;
    private volatile String handedToken;

    private ReleaseSubscription(ScriptRunner runner, String channel, String owner) {
        this.topic = runner.client().getTopic(channel, StringCodec.INSTANCE);
        this.handOffPrefix = owner + " ";
        this.listenerId = topic.addListenerAsync(String.class, (ch, message) -> {
            if (message.startsWith(handOffPrefix)) {
                handedToken = message.substring(handOffPrefix.length());
            }
            released.release();
        }).toCompletableFuture();
    }

    /**
     * Subscribes to {@code keys.channel()} for {@code owner} and waits for the server to confirm, at most the
     * operation timeout.
     *
     * @throws dev.mortise.lock.LockBackendException if the subscription is not confirmed in time
     */
    public static ReleaseSubscription open(ScriptRunner runner, RedisKeys keys, String key, String owner) {
        ReleaseSubscription subscription = new ReleaseSubscription(runner, keys.channel(), owner);
        try {
            runner.await(subscription.listenerId, runner.timeout(), key, "subscribe to releases of");
        } catch (RuntimeException e) {
            subscription.close();
            throw e;
        }
        return subscription;
    }

    /** Forgets releases seen so far: the caller is about to look at the key itself. */
    public void drain() {
        released.drainPermits();
    }

    /**
     * Waits until a release is published or {@code max} passes.
     *
     * @throws InterruptedException if interrupted (the caller closes the subscription)
     */
    public void await(Duration max) throws InterruptedException {
        released.tryAcquire(max.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Fair mode: the token the release script sent when it handed the lock to this
     * subscription's owner, or null if it has not.
     */
    public Long handedToken() {
        String token = handedToken;
        return token == null ? null : Long.valueOf(token);
    }

    @Override
    public void close() {
        // If the subscription is still being confirmed, remove the listener once it is.
        listenerId.thenAccept(id -> topic.removeListenerAsync(id));
    }
}
