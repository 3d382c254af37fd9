package dev.mortise.lock.redis.internal;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * {@link RedisTransport} over Lettuce: one multiplexed command connection shared by every call
 * of the backend (no pool: Lettuce pipelines concurrent commands on it), and one pub/sub
 * connection for the release channels, both opened on first use without blocking the caller.
 * On a {@link RedisClusterClient} the command connection routes each script by the slot of its
 * first KEY (Lettuce follows {@code MOVED}/{@code ASK}), except a batch with {@code WAIT}, which
 * goes to each master's own connection ({@link #sendBatch}); Sentinel, TLS and ACL come with the
 * client's {@link RedisURI}.
 *
 * <p>Per call it builds the command's arguments and output and nothing else: the script's SHA-1
 * (and source) are encoded once per script ({@link LuaScript#shaBytes()}), keys and arguments
 * are written straight from the {@link ScriptCall} into the network buffer ({@link ScriptArgs};
 * on a Cluster, Lettuce's own argument list, which it routes by), and the future
 * handed back is Lettuce's own command (no adapter, no thread hop: it completes on Lettuce's
 * I/O thread; see {@link RedisTransport} for what runs there).
 *
 * <p>Subscriptions are counted per channel: {@code SUBSCRIBE} when a channel gets its first
 * listener, {@code UNSUBSCRIBE} when its last goes; both are sent under one lock and decided by
 * the channel's state at sending time, so whatever order they race in, the connection ends
 * subscribed exactly to the channels that have listeners. Lettuce resubscribes them after a
 * reconnect. Thread-safe.
 */
public final class LettuceTransport implements RedisTransport {

    private static final StringCodec CODEC = StringCodec.UTF8;
    /** Connecting a supplied {@link RedisClient} blocks (its URI is private): done on a thread of its own. */
    private static final Executor CONNECTOR = task -> {
        Thread thread = new Thread(task, "mortise-lettuce-connect");
        thread.setDaemon(true);
        thread.start();
    };

    private final AbstractRedisClient client;
    private final boolean owned;
    private final boolean cluster;
    private final Lazy<Commands> commands;
    private final Lazy<StatefulRedisPubSubConnection<String, String>> pubSub;
    /** Channels with listeners; writes under {@code topicLock}, reads (message dispatch) lock-free. */
    private final ConcurrentHashMap<String, Topic> topics = new ConcurrentHashMap<>();
    private final Object topicLock = new Object();
    private volatile boolean closed;

    /** The command connection and its async API, fetched once. */
    private record Commands(StatefulConnection<String, String> connection, BaseRedisAsyncCommands<String, String> async) {
    }

    /**
     * @param client a {@link RedisClient} or {@link RedisClusterClient}
     * @param uri    the URI to connect a {@link RedisClient} to, or null to use the client's own
     *               (which Lettuce only offers as a blocking connect)
     * @param owned  whether {@link #close()} shuts the client down (the backend built it)
     */
    public LettuceTransport(AbstractRedisClient client, RedisURI uri, boolean owned) {
        this.client = client;
        this.owned = owned;
        this.cluster = client instanceof RedisClusterClient;
        if (client instanceof RedisClusterClient clusterClient) {
            // Lettuce connects a Cluster asynchronously only once it knows the topology: load it first.
            commands = new Lazy<>(() -> clusterClient.refreshPartitionsAsync().toCompletableFuture()
                    .thenCompose(none -> clusterClient.connectAsync(CODEC)).thenApply(LettuceTransport::commands),
                    c -> c.connection().closeAsync());
            pubSub = new Lazy<>(() -> clusterClient.refreshPartitionsAsync().toCompletableFuture()
                    .thenCompose(none -> clusterClient.connectPubSubAsync(CODEC)).thenApply(this::listening),
                    StatefulConnection::closeAsync);
        } else if (client instanceof RedisClient single) {
            commands = new Lazy<>(() -> (uri != null ? single.connectAsync(CODEC, uri).toCompletableFuture()
                    : CompletableFuture.supplyAsync(() -> single.connect(CODEC), CONNECTOR))
                    .thenApply(LettuceTransport::commands), c -> c.connection().closeAsync());
            pubSub = new Lazy<>(() -> (uri != null ? single.connectPubSubAsync(CODEC, uri).toCompletableFuture()
                    : CompletableFuture.supplyAsync(() -> single.connectPubSub(CODEC), CONNECTOR))
                    .thenApply(this::listening), StatefulConnection::closeAsync);
        } else {
            throw new IllegalArgumentException("a Lettuce RedisClient or RedisClusterClient is needed, got "
                    + client.getClass().getName() + " (backend 'redis')");
        }
    }

    private static Commands commands(StatefulConnection<String, String> connection) {
        if (connection instanceof StatefulRedisClusterConnection<String, String> c) {
            return new Commands(c, c.async());
        }
        return new Commands(connection, ((StatefulRedisConnection<String, String>) connection).async());
    }

    /** One listener for the whole connection: hands each message to its channel's listeners. */
    private <C extends StatefulRedisPubSubConnection<String, String>> C listening(C connection) {
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

    // ---- scripts ------------------------------------------------------------------------------

    /**
     * The command connection, opened on first use within the client's connect timeout (TCP
     * connect, TLS handshake, {@code HELLO}/{@code AUTH}); the pub/sub one is started once it is
     * open, so that a first TLS set-up on a cold JVM does not compete with the command's own.
     */
    @Override
    public CompletableFuture<?> connect() {
        return open();
    }

    private CompletableFuture<Commands> open() {
        Commands ready = commands.ready();
        if (ready != null) {
            return CompletableFuture.completedFuture(ready);
        }
        return commands.get().thenApply(c -> {
            pubSub.get();
            return c;
        });
    }

    @Override
    public <T> CompletableFuture<T> send(ScriptCall call, boolean eval) {
        Commands ready = commands.ready();
        if (ready != null) {
            return dispatch(ready.async(), call, eval);
        }
        // First use: the connection is on its way (the pub/sub one is started beside it).
        return open().thenCompose(c -> dispatch(c.async(), call, eval));
    }

    private <T> CompletableFuture<T> dispatch(BaseRedisAsyncCommands<String, String> async, ScriptCall call,
                                              boolean eval) {
        return dispatch(async, call, eval, cluster);
    }

    /**
     * @param routed whether {@code async} is a Cluster connection, which routes by Lettuce's own
     *               argument list; a single node's connection takes {@link ScriptArgs}
     */
    @SuppressWarnings("unchecked")
    private static <T> CompletableFuture<T> dispatch(BaseRedisAsyncCommands<String, String> async, ScriptCall call,
                                                     boolean eval, boolean routed) {
        CommandArgs<String, String> args = routed ? clusterArgs(call, eval) : new ScriptArgs(call, eval);
        CommandOutput<String, String, ?> output = call.returnType() == ScriptReturn.LIST
                ? new NestedMultiOutput<>(CODEC) : new IntegerOutput<>(CODEC);
        // Lettuce's command is itself the CompletableFuture: handed out as is.
        return (CompletableFuture<T>) async.dispatch(eval ? CommandType.EVAL : CommandType.EVALSHA, output, args)
                .toCompletableFuture();
    }

    /** Lettuce's own argument list: a Cluster connection routes by the first key argument in it. */
    private static CommandArgs<String, String> clusterArgs(ScriptCall call, boolean eval) {
        List<Object> keys = call.keys();
        CommandArgs<String, String> args = new CommandArgs<>(CODEC)
                .add(eval ? call.script().sourceBytes() : call.script().shaBytes())
                .add(keys.size());
        for (Object key : keys) {
            args.addKey(key.toString()); // a key argument: the first one picks the node
        }
        for (Object value : call.args()) {
            args.addValue(value instanceof String s ? s : String.valueOf(value));
        }
        return args;
    }

    /**
     * The calls go out back to back on the shared connection (Lettuce pipelines them; on a Cluster
     * each to its slot's node); {@code WAIT} follows on the same connection, which on a single
     * server or Sentinel group is the one the writes went on.
     *
     * <p>On a Cluster with {@code replicas} above 0 the shared connection will not do: it sends a
     * keyless {@code WAIT} to any node, and {@code WAIT} counts the replicas of the node it reaches.
     * So the calls are grouped by the master that Lettuce's topology gives for the slot of each
     * call's first key, and each group goes out on that master's own connection, followed there
     * by {@code WAIT} ({@link #nodeBatch}); the batch counts the fewest replicas over the masters
     * ({@link BatchParts}). A batch is one call today for an attempt, and one call per slot (so
     * possibly several masters) for {@code renewAll}. Without replicas nothing changes: the shared
     * connection routes each call by itself.
     */
    @Override
    public CompletableFuture<BatchReply> sendBatch(List<ScriptCall> calls, int replicas, Duration replicaTimeout,
                                                   boolean eval) {
        Commands ready = commands.ready();
        if (ready == null) {
            return commands.get().thenCompose(c -> batch(c, calls, replicas, replicaTimeout, eval));
        }
        return batch(ready, calls, replicas, replicaTimeout, eval);
    }

    private CompletableFuture<BatchReply> batch(Commands c, List<ScriptCall> calls, int replicas,
                                                Duration replicaTimeout, boolean eval) {
        if (cluster && replicas > 0) {
            return clusterBatch((StatefulRedisClusterConnection<String, String>) c.connection(), calls, replicas,
                    replicaTimeout, eval);
        }
        return batch(c.async(), calls, replicas, replicaTimeout, eval, cluster);
    }

    /**
     * Sends {@code calls} and then, with {@code replicas}, {@code WAIT} on {@code async}, from this
     * thread one after the other: they reach the connection in this order, so WAIT follows the
     * writes it waits for (and counts any other writes sent before it too).
     */
    private static CompletableFuture<BatchReply> batch(BaseRedisAsyncCommands<String, String> async,
                                                       List<ScriptCall> calls, int replicas, Duration replicaTimeout,
                                                       boolean eval, boolean routed) {
        List<CompletableFuture<Object>> replies = new ArrayList<>(calls.size());
        for (ScriptCall call : calls) {
            replies.add(dispatch(async, call, eval, routed));
        }
        CompletableFuture<Long> synced = replicas == 0 ? CompletableFuture.completedFuture(0L)
                : async.dispatch(CommandType.WAIT, new IntegerOutput<>(CODEC), new CommandArgs<>(CODEC)
                        .add(replicas).add(Math.max(1, replicaTimeout.toMillis()))).toCompletableFuture();
        return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).thenCombine(synced, (none, n) -> {
            List<Object> values = new ArrayList<>(replies.size());
            for (CompletableFuture<Object> reply : replies) {
                values.add(reply.join());
            }
            return new BatchReply(values, n == null ? 0 : (int) Math.min(Integer.MAX_VALUE, n));
        });
    }

    /** Groups the calls by the master of their slot and sends each group with its {@code WAIT} to that master. */
    private CompletableFuture<BatchReply> clusterBatch(StatefulRedisClusterConnection<String, String> connection,
                                                       List<ScriptCall> calls, int replicas, Duration replicaTimeout,
                                                       boolean eval) {
        Partitions partitions = connection.getPartitions();
        Map<String, List<Integer>> byMaster = new LinkedHashMap<>();
        for (int i = 0; i < calls.size(); i++) {
            String key = BatchParts.routingKey(calls.get(i));
            int slot = Crc16.keySlot(key);
            RedisClusterNode master = partitions.getMasterBySlot(slot);
            if (master == null) {
                refreshTopology();
                return CompletableFuture.failedFuture(new RedisException("the Lettuce topology of the Redis "
                        + "Cluster names no master for slot " + slot + " of '" + ScriptRunner.abbreviate(key)
                        + "' (cluster not ok, or topology stale); nothing was sent. The topology is being "
                        + "refreshed: retry, and check CLUSTER INFO if it persists"));
            }
            byMaster.computeIfAbsent(master.getNodeId(), id -> new ArrayList<>()).add(i);
        }
        return BatchParts.join(calls, byMaster,
                (nodeId, part) -> nodeBatch(connection, nodeId, part, replicas, replicaTimeout, eval));
    }

    /**
     * Sends {@code calls} and their {@code WAIT} on the connection of master {@code nodeId}. That
     * connection does not follow redirections: a {@code MOVED} or {@code ASK} (the slot moved, or
     * is moving, since Lettuce last read the topology) fails the batch instead of running the
     * write on another node than the one {@code WAIT} asks, and the topology is refreshed so the
     * next attempt goes to the right master.
     */
    private CompletableFuture<BatchReply> nodeBatch(StatefulRedisClusterConnection<String, String> connection,
                                                    String nodeId, List<ScriptCall> calls, int replicas,
                                                    Duration replicaTimeout, boolean eval) {
        CompletableFuture<StatefulRedisConnection<String, String>> master;
        try {
            master = connection.getConnectionAsync(nodeId);
        } catch (RuntimeException e) { // a node the topology no longer knows: Lettuce may throw at once
            refreshTopology();
            return CompletableFuture.failedFuture(e);
        }
        return master
                .thenCompose(node -> batch(node.async(), calls, replicas, replicaTimeout, eval, false))
                .exceptionallyCompose(failure -> {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    String message = String.valueOf(cause.getMessage());
                    if (!message.startsWith("MOVED") && !message.startsWith("ASK")) {
                        return CompletableFuture.failedFuture(cause);
                    }
                    refreshTopology();
                    return CompletableFuture.failedFuture(new RedisException("master " + nodeId + " answered '"
                            + message + "' for '" + ScriptRunner.abbreviate(calls.get(0).routingKey())
                            + "': its slot moved since Lettuce read the Cluster topology, so the write did not run "
                            + "there and nothing is counted as replicated. The topology is being refreshed: retry",
                            cause));
                });
    }

    /** Re-reads the Cluster topology in the background (the next batch routes by it). */
    private void refreshTopology() {
        if (client instanceof RedisClusterClient clusterClient && !closed) {
            clusterClient.refreshPartitionsAsync();
        }
    }

    // ---- release channels -----------------------------------------------------------------------

    /** One subscribed channel: its listeners and the confirmation of its {@code SUBSCRIBE}. */
    private static final class Topic {
        final Set<Consumer<String>> listeners = new CopyOnWriteArraySet<>();
        final CompletableFuture<Void> confirmed = new CompletableFuture<>();
    }

    @Override
    public Subscription subscribe(String channel, Consumer<String> onMessage) {
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
        return new Subscription() {
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

    // ---- the rest -------------------------------------------------------------------------------

    @Override
    public boolean cluster() {
        return cluster;
    }

    @Override
    public boolean stopped() {
        if (closed) {
            return true;
        }
        // A supplied client the user shut down: Lettuce closed our connections with it (one that is
        // only reconnecting is not closed), and a client on resources of its own stopped their threads.
        Commands open = commands.ready();
        StatefulConnection<String, String> listening = pubSub.ready();
        return (open != null && closedForGood(open.connection())) || (listening != null && closedForGood(listening))
                || client.getResources().eventExecutorGroup().isShuttingDown();
    }

    private static boolean closedForGood(StatefulConnection<?, ?> connection) {
        return connection instanceof io.lettuce.core.RedisChannelHandler<?, ?> handler && handler.isClosed();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        CompletableFuture<?> a = commands.close();
        CompletableFuture<?> b = pubSub.close();
        if (owned) {
            try {
                CompletableFuture.allOf(a, b).get(2, TimeUnit.SECONDS);
            } catch (Exception e) {
                // shut down below whatever the connections did
            }
            // Bounded: Lettuce's own shutdown() waits on its future without a limit and has been seen
            // to wait forever (redis/lettuce#2278; a CI run hung 23 min in a test's close).
            try {
                client.shutdownAsync(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // the event loops end on their own; nothing of ours is left to wait for
            }
        }
    }

    /**
     * A connection opened on first use: a failed attempt is forgotten, so the next use tries
     * again; once open it is kept (Lettuce reconnects it by itself) until {@link #close()}.
     */
    private static final class Lazy<C> {
        private final Supplier<CompletableFuture<C>> connect;
        private final java.util.function.Function<C, CompletableFuture<?>> closer;
        private volatile C ready;
        private CompletableFuture<C> pending; // guarded by this
        private boolean closed; // guarded by this

        Lazy(Supplier<CompletableFuture<C>> connect, java.util.function.Function<C, CompletableFuture<?>> closer) {
            this.connect = connect;
            this.closer = closer;
        }

        C ready() {
            return ready;
        }

        synchronized CompletableFuture<C> get() {
            C now = ready;
            if (now != null) {
                return CompletableFuture.completedFuture(now);
            }
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the Redis backend is closed"));
            }
            if (pending == null || pending.isCompletedExceptionally()) {
                CompletableFuture<C> attempt;
                try {
                    attempt = connect.get();
                } catch (RuntimeException e) {
                    attempt = CompletableFuture.failedFuture(e);
                }
                pending = attempt.thenApply(this::opened);
            }
            return pending;
        }

        private C opened(C connection) {
            boolean late;
            synchronized (this) {
                late = closed;
                if (!late) {
                    ready = connection;
                }
            }
            if (late) {
                closer.apply(connection);
                throw new IllegalStateException("the Redis backend is closed");
            }
            return connection;
        }

        CompletableFuture<?> close() {
            C open;
            synchronized (this) {
                closed = true;
                open = ready;
                ready = null;
            }
            return open == null ? CompletableFuture.completedFuture(null) : closer.apply(open);
        }
    }
}
