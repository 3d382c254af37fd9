package dev.mortise.lock.redis.internal.lettuce;

import dev.mortise.lock.redis.internal.BatchReply;
import dev.mortise.lock.redis.internal.RedisTransport;
import dev.mortise.lock.redis.internal.ScriptCall;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static dev.mortise.lock.redis.internal.lettuce.LettuceDispatch.CODEC;

/**
 * {@link RedisTransport} over Lettuce: one multiplexed command connection shared by every call
 * of the backend (no pool: Lettuce pipelines concurrent commands on it), and one pub/sub
 * connection for the release channels ({@link LettuceChannels}), both opened on first use without
 * blocking the caller. On a {@link RedisClusterClient} the command connection routes each script by
 * the slot of its first KEY (Lettuce follows {@code MOVED}/{@code ASK}), except a batch with
 * {@code WAIT}, which goes to each master's own connection ({@link LettuceClusterBatch}); Sentinel,
 * TLS and ACL come with the client's {@link RedisURI}. What a call writes is {@link LettuceDispatch}'s.
 * Thread-safe.
 */
public final class LettuceTransport implements RedisTransport {

    /** Connecting a supplied {@link RedisClient} blocks (its URI is private): done on a thread of its own. */
    private static final Executor CONNECTOR = task -> {
        Thread thread = new Thread(task, "mortise-lettuce-connect");
        thread.setDaemon(true);
        thread.start();
    };

    private final AbstractRedisClient client;
    private final boolean owned;
    private final boolean cluster;
    private final LazyConnection<Commands> commands;
    private final LettuceChannels channels;
    private volatile boolean closed;
    /** Disconnects of this client's connections: each may have left commands to be written again. */
    private final AtomicLong disconnects = new AtomicLong();
    private final RedisConnectionStateListener countDisconnects = new RedisConnectionStateListener() {
        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            disconnects.incrementAndGet();
        }
    };

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
        // Counted before any connection opens: Lettuce calls it on the I/O thread as the channel goes
        // inactive, before it reconnects and writes the unanswered commands again.
        client.addListener(countDisconnects);
        if (client instanceof RedisClusterClient clusterClient) {
            // Lettuce connects a Cluster asynchronously only once it knows the topology: load it first.
            commands = new LazyConnection<>(() -> clusterClient.refreshPartitionsAsync().toCompletableFuture()
                    .thenCompose(none -> clusterClient.connectAsync(CODEC)).thenApply(LettuceTransport::commands),
                    c -> c.connection().closeAsync());
            channels = new LettuceChannels(() -> clusterClient.refreshPartitionsAsync().toCompletableFuture()
                    .thenCompose(none -> clusterClient.connectPubSubAsync(CODEC)));
        } else if (client instanceof RedisClient single) {
            commands = new LazyConnection<>(() -> (uri != null ? single.connectAsync(CODEC, uri).toCompletableFuture()
                    : CompletableFuture.supplyAsync(() -> single.connect(CODEC), CONNECTOR))
                    .thenApply(LettuceTransport::commands), c -> c.connection().closeAsync());
            channels = new LettuceChannels(() -> uri != null ? single.connectPubSubAsync(CODEC, uri).toCompletableFuture()
                    : CompletableFuture.supplyAsync(() -> single.connectPubSub(CODEC), CONNECTOR));
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
            channels.connect();
            return c;
        });
    }

    @Override
    public <T> CompletableFuture<T> send(ScriptCall call, boolean eval) {
        Commands ready = commands.ready();
        if (ready != null) {
            return LettuceDispatch.dispatch(ready.async(), call, eval, cluster);
        }
        // First use: the connection is on its way (the pub/sub one is started beside it).
        return open().thenCompose(c -> LettuceDispatch.dispatch(c.async(), call, eval, cluster));
    }

    /** Lettuce resends unanswered commands after reconnecting whatever it is told: {@link #resends()} counts that. */
    @Override
    public <T> CompletableFuture<T> sendOnce(ScriptCall call, boolean eval) {
        return send(call, eval);
    }

    @Override
    public long resends() {
        return disconnects.get();
    }

    /**
     * The calls go out back to back on the shared connection (Lettuce pipelines them; on a Cluster
     * each to its slot's node); {@code WAIT} follows on the same connection, which on a single
     * server or Sentinel group is the one the writes went on. On a Cluster with {@code replicas}
     * above 0 each master's calls go on that master's own connection with a {@code WAIT} of their
     * own ({@link LettuceClusterBatch}). Without replicas nothing changes: the shared connection
     * routes each call by itself.
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
            return LettuceClusterBatch.send((StatefulRedisClusterConnection<String, String>) c.connection(), calls,
                    replicas, replicaTimeout, eval, this::refreshTopology);
        }
        return LettuceDispatch.batch(c.async(), calls, replicas, replicaTimeout, eval, cluster);
    }

    /** Re-reads the Cluster topology in the background (the next batch routes by it). */
    private void refreshTopology() {
        if (client instanceof RedisClusterClient clusterClient && !closed) {
            clusterClient.refreshPartitionsAsync();
        }
    }

    // ---- the rest -------------------------------------------------------------------------------

    @Override
    public Subscription subscribe(String channel, Consumer<String> onMessage) {
        return channels.subscribe(channel, onMessage);
    }

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
        StatefulConnection<String, String> listening = channels.ready();
        return (open != null && closedForGood(open.connection())) || (listening != null && closedForGood(listening))
                || client.getResources().eventExecutorGroup().isShuttingDown();
    }

    private static boolean closedForGood(StatefulConnection<?, ?> connection) {
        return connection instanceof RedisChannelHandler<?, ?> handler && handler.isClosed();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        client.removeListener(countDisconnects);
        CompletableFuture<?> a = commands.close();
        CompletableFuture<?> b = channels.close();
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
}
