package dev.mortise.lock.redis.internal.lettuce;

import dev.mortise.lock.redis.internal.RedisTransport;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The release channels of a {@link LettuceTransport}, on one pub/sub connection opened on first use.
 * Subscriptions are counted per channel: {@code SUBSCRIBE} when a channel gets its first listener,
 * {@code UNSUBSCRIBE} when its last goes; both are sent under one lock and decided by the channel's
 * state at sending time, so whatever order they race in, the connection ends subscribed exactly to the
 * channels that have listeners. Lettuce resubscribes them after a reconnect. Thread-safe.
 */
final class LettuceChannels {

    private final LazyConnection<StatefulRedisPubSubConnection<String, String>> pubSub;
    /** Channels with listeners; writes under {@code topicLock}, reads (message dispatch) lock-free. */
    private final ConcurrentHashMap<String, Topic> topics = new ConcurrentHashMap<>();
    private final Object topicLock = new Object();

    /** One subscribed channel: its listeners and the confirmation of its {@code SUBSCRIBE}. */
    private static final class Topic {
        final Set<Consumer<String>> listeners = new CopyOnWriteArraySet<>();
        final CompletableFuture<Void> confirmed = new CompletableFuture<>();
    }

    /** @param connect opens the pub/sub connection (without blocking the caller) */
    LettuceChannels(Supplier<CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>>> connect) {
        this.pubSub = new LazyConnection<>(() -> connect.get().thenApply(this::listening),
                StatefulConnection::closeAsync);
    }

    /** One listener for the whole connection: hands each message to its channel's listeners. */
    private StatefulRedisPubSubConnection<String, String> listening(
            StatefulRedisPubSubConnection<String, String> connection) {
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                Topic topic = topics.get(channel);
                if (topic != null) {
                    for (Consumer<String> listener : topic.listeners) {
                        listener.accept(message);
                    }
                }
            }
        });
        return connection;
    }

    /** Starts opening the pub/sub connection, if it is not open (yet). */
    void connect() {
        pubSub.get();
    }

    /** The open pub/sub connection, or null. */
    StatefulConnection<String, String> ready() {
        return pubSub.ready();
    }

    CompletableFuture<?> close() {
        return pubSub.close();
    }

    RedisTransport.Subscription subscribe(String channel, Consumer<String> onMessage) {
        Topic topic;
        boolean created = false;
        synchronized (topicLock) {
            topic = topics.get(channel);
            if (topic == null) {
                topic = new Topic();
                topics.put(channel, topic);
                created = true;
            }
            topic.listeners.add(onMessage);
        }
        if (created) {
            sync(channel);
        }
        Topic subscribed = topic;
        return new RedisTransport.Subscription() {
            @Override
            public CompletableFuture<?> confirmed() {
                return subscribed.confirmed;
            }

            @Override
            public void close() {
                boolean last;
                synchronized (topicLock) {
                    last = subscribed.listeners.remove(onMessage) && subscribed.listeners.isEmpty()
                            && topics.remove(channel, subscribed);
                }
                if (last) {
                    sync(channel);
                }
            }
        };
    }

    /** Brings the server in line with {@code topics} for {@code channel}, once the connection is there. */
    private void sync(String channel) {
        StatefulRedisPubSubConnection<String, String> ready = pubSub.ready();
        if (ready != null) {
            sync(ready, channel);
            return;
        }
        pubSub.get().whenComplete((connection, failure) -> {
            if (failure == null) {
                sync(connection, channel);
            } else {
                Topic topic = topics.get(channel);
                if (topic != null) {
                    failed(channel, topic, failure);
                }
            }
        });
    }

    /**
     * A subscription that could not be made: forgotten, so the next subscriber sends a fresh
     * {@code SUBSCRIBE} (as with Redisson, whose failed listener is never added), and failed for
     * the subscribers it has, who give up on it.
     */
    private void failed(String channel, Topic topic, Throwable failure) {
        synchronized (topicLock) {
            topics.remove(channel, topic);
        }
        topic.confirmed.completeExceptionally(failure);
    }

    private void sync(StatefulRedisPubSubConnection<String, String> connection, String channel) {
        synchronized (topicLock) { // sent under the lock: the wire sees them in the order decided
            Topic topic = topics.get(channel);
            if (topic == null) {
                connection.async().unsubscribe(channel);
            } else if (!topic.confirmed.isDone()) {
                connection.async().subscribe(channel).whenComplete((none, failure) -> {
                    if (failure == null) {
                        topic.confirmed.complete(null);
                    } else {
                        failed(channel, topic, failure);
                    }
                });
            }
        }
    }
}
