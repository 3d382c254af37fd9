package dev.mortise.lock.redis.internal;

import dev.mortise.lock.spi.AsyncWaits;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The release-channel subscriptions of one backend: one per lock key, shared by every waiter
 * of that key in this backend, and kept for {@link #LINGER} after its last waiter left, so a
 * client that waits for the same key again and again (a contended lock) subscribes once
 * instead of once per wait. A subscription whose linger ran out is closed (the transport sends
 * {@code UNSUBSCRIBE} when its last listener goes), so nothing stays on the server once no
 * one waits; {@link #close()} closes them all at once. Thread-safe.
 */
public final class ReleaseChannels implements AutoCloseable {

    /** How long a subscription outlives its last waiter. */
    public static final Duration LINGER = Duration.ofMillis(500);

    private final ScriptRunner runner;
    private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();
    /**
     * Runs a linger's end on the shared asynchronous threads: the default async pool of
     * {@link CompletableFuture} starts a thread per task on a machine of two cores or fewer.
     */
    private final Executor lingerTimer = CompletableFuture.delayedExecutor(LINGER.toMillis(), TimeUnit.MILLISECONDS,
            AsyncWaits.executor());
    private volatile boolean closed;

    ReleaseChannels(ScriptRunner runner) {
        this.runner = runner;
    }

    /** One key's subscription; {@code users} and the linger fields are guarded by the map's bin lock. */
    private final class Channel {
        final String key;
        final String name;
        final CompletableFuture<Void> confirmed = new CompletableFuture<>();
        final Set<ReleaseWaiter> waiters = ConcurrentHashMap.newKeySet();
        volatile RedisTransport.Subscription subscription;
        int users;
        long idleSince;
        boolean lingering;

        Channel(String key, String name) {
            this.key = key;
            this.name = name;
        }

        /** Subscribes; called once, by the thread that created the channel, outside the map's lock. */
        void subscribe() {
            CompletableFuture<?> done;
            try {
                subscription = runner.transport().subscribe(name, message -> {
                    for (ReleaseWaiter waiter : waiters) {
                        waiter.onMessage(message);
                    }
                });
                done = subscription.confirmed();
            } catch (RuntimeException e) {
                done = CompletableFuture.failedFuture(e);
            }
            done.whenComplete((id, e) -> {
                if (e == null) {
                    confirmed.complete(null);
                } else {
                    confirmed.completeExceptionally(e);
                    channels.remove(key, this); // never reuse a failed subscription
                }
            });
        }

        boolean live() {
            return confirmed.isDone() && !confirmed.isCompletedExceptionally();
        }

        /** Removes the listener; the transport unsubscribes when it was the channel's last. */
        void unsubscribe() {
            RedisTransport.Subscription s = subscription;
            if (s != null) {
                s.close();
            }
        }
    }

    /**
     * Registers {@code waiter} on its key's subscription, subscribing if there is none; the
     * subscription may still be unconfirmed ({@link ReleaseWaiter#subscribed()}).
     */
    void join(ReleaseWaiter waiter) {
        boolean[] created = new boolean[1];
        Channel channel = channels.compute(waiter.key(), (k, c) -> {
            if (c == null) {
                c = new Channel(k, waiter.keys().channel());
                created[0] = true;
            }
            c.users++;
            c.waiters.add(waiter);
            return c;
        });
        waiter.joined(this, channel.confirmed);
        if (created[0]) {
            channel.subscribe();
        }
        if (closed) {
            leave(waiter);
            throw new IllegalStateException("the Redis backend is closed");
        }
    }

    /**
     * Registers {@code waiter} only if its key's subscription is already confirmed: then every
     * release published from now on reaches it, and it needs no retry after subscribing.
     *
     * @return whether it joined
     */
    boolean joinIfSubscribed(ReleaseWaiter waiter) {
        if (channels.isEmpty()) {
            return false; // the common, uncontended case: no lookup, no allocation
        }
        boolean[] joined = new boolean[1];
        Channel channel = channels.computeIfPresent(waiter.key(), (k, c) -> {
            if (c.live()) {
                c.users++;
                c.waiters.add(waiter);
                joined[0] = true;
            }
            return c;
        });
        if (!joined[0]) {
            return false;
        }
        waiter.joined(this, channel.confirmed);
        return true;
    }

    /** Unregisters {@code waiter}; its key's subscription lingers if it was the last. */
    void leave(ReleaseWaiter waiter) {
        boolean[] schedule = new boolean[1];
        Channel channel = channels.computeIfPresent(waiter.key(), (k, c) -> {
            if (c.waiters.remove(waiter) && --c.users == 0) {
                c.idleSince = System.nanoTime();
                schedule[0] = !c.lingering;
                c.lingering = true;
            }
            return c;
        });
        if (schedule[0]) {
            lingerTimer.execute(() -> expire(channel));
        }
    }

    /** Closes {@code channel} if it has been idle for the whole linger; otherwise looks again later. */
    private void expire(Channel channel) {
        boolean[] outcome = new boolean[2]; // [0]: close it, [1]: look again
        channels.computeIfPresent(channel.key, (k, c) -> {
            if (c != channel) {
                return c;
            }
            if (c.users > 0) {
                c.lingering = false;
                return c;
            }
            if (System.nanoTime() - c.idleSince >= LINGER.toNanos()) {
                outcome[0] = true;
                return null;
            }
            outcome[1] = true;
            return c;
        });
        if (outcome[0]) {
            channel.unsubscribe();
        } else if (outcome[1]) {
            lingerTimer.execute(() -> expire(channel));
        }
    }

    /** Whether no key has a subscription (no one waited within the linger): waiting needs none yet. */
    boolean isEmpty() {
        return channels.isEmpty();
    }

    /** Subscriptions now open, lingering ones included (for tests and diagnostics). */
    int size() {
        return channels.size();
    }

    /** Closes every subscription now; waiters still registered stop receiving messages. */
    @Override
    public void close() {
        closed = true;
        for (Channel channel : channels.values()) {
            if (channels.remove(channel.key, channel)) {
                channel.unsubscribe();
            }
        }
    }
}
