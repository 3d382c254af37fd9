package dev.mortise.lock.redis.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Everything lock-redis asks of a Redis client, and nothing more: send one of our scripts
 * ({@code EVALSHA} or {@code EVAL}) to the node of its routing key, pipeline a few of them
 * (optionally followed by {@code WAIT} on the same connection), subscribe to release channels,
 * and close. Two implementations, one per driver package: {@code redisson.RedissonTransport} and
 * {@code lettuce.LettuceTransport}; the rest of the module (timeouts, {@code NOSCRIPT} fallback,
 * error messages, retries) lives above it in {@link ScriptRunner}, the same for both.
 *
 * <p>Threading, which both implementations keep: nothing here blocks the caller (connecting
 * included); futures complete on the client's I/O threads, and so do message callbacks. What
 * lock-redis runs there never blocks and never runs user code: it wakes a waiting thread, sends
 * a retry, or schedules a clean-up (the backend's SPI methods are synchronous, so the core and
 * the application only ever see results on their own threads). Thread-safe.
 */
public interface RedisTransport {

    /**
     * Opens the command connection if it is not open (yet), without blocking the caller. The
     * future completes once a command can be written on it (TCP connected, TLS and Redis
     * handshakes done) and fails if it could not be opened; it is bounded by the client's own
     * connect timeout. A connection that opens after its waiter gave up is kept for the next call.
     * A client that connects on the first command instead (Redisson's lazy initialization, which
     * connects on the thread that sends it, within its own connect timeout) completes it at once.
     */
    CompletableFuture<?> connect();

    /**
     * Starts one script call as is: {@code EVALSHA}, or {@code EVAL} (which also caches the script)
     * with {@code eval}; on a Cluster, on the master of the routing key's slot. A {@code NOSCRIPT}
     * answer fails the future (the caller resends with {@code eval}); a failure to send may also
     * fail it or be thrown.
     */
    <T> CompletableFuture<T> send(ScriptCall call, boolean eval);

    /**
     * Starts one script call that this client does not send again on its own (Redisson's retries are
     * off for it; Lettuce cannot be told, see {@link #resends()}): for a caller that must know whether
     * a call may have reached the server twice, and resends it itself.
     */
    <T> CompletableFuture<T> sendOnce(ScriptCall call, boolean eval);

    /**
     * How many times so far the client may have sent commands again on its own: connections that
     * broke with commands unanswered, which Lettuce writes again once it has reconnected. A call that
     * spans a change of this count may have reached the server twice. Redisson resends only what
     * {@link #sendOnce} does not send: 0.
     */
    long resends();

    /**
     * Sends the calls pipelined (one round trip per node), then, with {@code replicas} above 0,
     * {@code WAIT replicas replicaTimeout} on the same connection as the writes it waits for. On a
     * Cluster the calls may span several slots and masters ({@code renewAll} sends one call per
     * slot in one batch): each master that took writes gets its own {@code WAIT}, and
     * {@link BatchReply#syncedReplicas()} is the fewest over them, never a sum. A write must never
     * be counted by the {@code WAIT} of a node that did not take it.
     */
    CompletableFuture<BatchReply> sendBatch(List<ScriptCall> calls, int replicas, Duration replicaTimeout,
                                            boolean eval);

    /**
     * Subscribes {@code onMessage} to {@code channel}; {@link Subscription#confirmed()} completes
     * once the server confirmed it (every message published after that reaches {@code onMessage}),
     * or fails. {@code onMessage} runs on an I/O thread and must not block.
     */
    Subscription subscribe(String channel, Consumer<String> onMessage);

    /** Whether this is a Redis Cluster: keys of different slots must go in different script calls. */
    boolean cluster();

    /**
     * Whether the client is shut down or shutting down, by the backend's {@link #close()} or, for a
     * client the user supplied, by its owner: background retries stop.
     */
    boolean stopped();

    /**
     * Closes the connections this transport opened, and shuts the client down if the backend built
     * it; a client the user supplied stays open. Idempotent.
     */
    void close();

    /** One listener on one channel. */
    interface Subscription {

        /** Completes when the server confirmed the subscription; fails if it could not be made. */
        CompletableFuture<?> confirmed();

        /** Removes the listener; the channel is unsubscribed when it was its last. Never blocks. */
        void close();
    }
}
