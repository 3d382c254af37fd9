package dev.mortise.lock.redis.internal.redisson;

import dev.mortise.lock.redis.internal.BatchParts;
import dev.mortise.lock.redis.internal.BatchReply;
import dev.mortise.lock.redis.internal.KeyName;
import dev.mortise.lock.redis.internal.RedisTransport;
import dev.mortise.lock.redis.internal.ScriptCall;
import dev.mortise.lock.redis.internal.ScriptReturn;
import org.redisson.api.BatchOptions;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.options.OptionalOptions;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * {@link RedisTransport} over a {@link RedissonClient}: scripts through {@link RScript} (routed by
 * Redisson to the routing key's slot), batches through {@link RBatch} (with {@code WAIT} as
 * {@link BatchOptions#sync}), release channels through {@link RTopic} (Redisson shares one
 * subscription per channel among its listeners and unsubscribes when the last goes). Thread-safe.
 *
 * <p>On a Cluster, Redisson sends a batch's {@code WAIT} to every node the batch writes to, but
 * reports the <em>sum</em> of their answers ({@link BatchResult#getSyncedSlaves()}): a batch over
 * three masters whose one lagging replica answers 0 while the other two answer 1 would read as 2
 * replicas. So a batch with {@code waitForReplicas} whose calls span several slots is sent as one
 * {@link RBatch} per slot (each on one node, its count that node's own), all at once, and counts
 * the fewest ({@link BatchParts}).
 *
 * <p>The client connects on a thread of its own ({@link RedissonConnector}): every command, batch and
 * subscription waits for that first, so that Redisson never connects on a caller's thread, where
 * that caller's interrupt would end the connect for every other caller waiting for it.
 */
public final class RedissonTransport implements RedisTransport {

    private final RedissonClient client;
    private final RScript script;
    /** The same, without Redisson's retries: {@link #sendOnce}. */
    private final RScript scriptOnce;
    private final boolean owned;
    private final boolean cluster;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final RedissonConnector connector;

    /** @param owned whether {@link #close()} shuts the client down (the backend built it) */
    public RedissonTransport(RedissonClient client, boolean owned) {
        this.client = client;
        this.script = client.getScript(StringCodec.INSTANCE); // stateless: one for all calls
        this.scriptOnce = client.getScript(OptionalOptions.defaults().codec(StringCodec.INSTANCE).retryAttempts(0));
        this.owned = owned;
        this.cluster = client.getConfig().isClusterConfig();
        this.connector = new RedissonConnector(client);
    }

    /**
     * Redisson's lazy initialization, run on a thread of its own within Redisson's own
     * {@code connectTimeout} (see {@link RedissonConnector}); the command's answer is waited for only
     * once it is sent.
     */
    @Override
    public CompletableFuture<?> connect() {
        return connector.connect();
    }

    @Override
    public <T> CompletableFuture<T> send(ScriptCall call, boolean eval) {
        Throwable notOpen = connector.awaitOpen();
        return notOpen != null ? CompletableFuture.failedFuture(notOpen) : start(script, call, eval);
    }

    @Override
    public <T> CompletableFuture<T> sendOnce(ScriptCall call, boolean eval) {
        Throwable notOpen = connector.awaitOpen();
        return notOpen != null ? CompletableFuture.failedFuture(notOpen) : start(scriptOnce, call, eval);
    }

    @Override
    public long resends() {
        return 0;
    }

    @Override
    public CompletableFuture<BatchReply> sendBatch(List<ScriptCall> calls, int replicas, Duration replicaTimeout,
                                                   boolean eval) {
        Throwable notOpen = connector.awaitOpen();
        if (notOpen != null) {
            return CompletableFuture.failedFuture(notOpen);
        }
        if (cluster && replicas > 0 && calls.size() > 1) {
            Map<Integer, List<Integer>> slots = BatchParts.bySlot(calls);
            if (slots.size() > 1) {
                return BatchParts.join(calls, slots, (slot, part) -> batch(part, replicas, replicaTimeout, eval));
            }
        }
        return batch(calls, replicas, replicaTimeout, eval);
    }

    /** One {@link RBatch}; with {@code replicas}, its synced count is one node's only if its calls share a node. */
    private CompletableFuture<BatchReply> batch(List<ScriptCall> calls, int replicas, Duration replicaTimeout,
                                                boolean eval) {
        BatchOptions options = replicas == 0 ? BatchOptions.defaults()
                : BatchOptions.defaults().sync(replicas, replicaTimeout);
        RBatch batch = client.createBatch(options);
        RScriptAsync async = batch.getScript(StringCodec.INSTANCE);
        for (ScriptCall call : calls) {
            start(async, call, eval);
        }
        return batch.executeAsync().toCompletableFuture().thenApply(RedissonTransport::reply);
    }

    @SuppressWarnings("unchecked")
    private static BatchReply reply(BatchResult<?> result) {
        return new BatchReply((List<Object>) result.getResponses(), result.getSyncedSlaves());
    }

    private static <T> CompletableFuture<T> start(RScriptAsync script, ScriptCall call, boolean eval) {
        RScript.ReturnType type = call.returnType() == ScriptReturn.LIST ? RScript.ReturnType.LIST
                : RScript.ReturnType.LONG;
        RFuture<T> future;
        if (call.routingKey() == null) {
            future = eval ? script.evalAsync(RScript.Mode.READ_WRITE, call.script().source(), type)
                    : script.evalShaAsync(RScript.Mode.READ_WRITE, call.script().sha(), type);
        } else if (eval) {
            future = script.evalAsync(call.routingKey(), RScript.Mode.READ_WRITE, call.script().source(), type,
                    texts(call.keys()), texts(call.args()));
        } else {
            future = script.evalShaAsync(call.routingKey(), RScript.Mode.READ_WRITE, call.script().sha(), type,
                    texts(call.keys()), texts(call.args()));
        }
        return future.toCompletableFuture();
    }

    /** The keys with each {@link KeyName} as its string: Redisson is given plain strings only. */
    private static List<Object> texts(List<Object> keys) {
        for (Object key : keys) {
            if (key instanceof KeyName) {
                List<Object> texts = new ArrayList<>(keys.size());
                for (Object k : keys) {
                    texts.add(k instanceof KeyName ? k.toString() : k);
                }
                return texts;
            }
        }
        return keys;
    }

    /** As {@link #texts(List)}, for the arguments. */
    private static Object[] texts(Object[] args) {
        Object[] texts = args;
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof KeyName) {
                if (texts == args) {
                    texts = args.clone();
                }
                texts[i] = args[i].toString();
            }
        }
        return texts;
    }

    @Override
    public Subscription subscribe(String channel, Consumer<String> onMessage) {
        RTopic topic = null;
        CompletableFuture<Integer> listenerId;
        Throwable notOpen = connector.awaitOpen();
        if (notOpen != null) {
            listenerId = CompletableFuture.failedFuture(notOpen);
        } else {
            try {
                topic = client.getTopic(channel, StringCodec.INSTANCE);
                listenerId = topic.addListenerAsync(String.class, (ch, message) -> onMessage.accept(message))
                        .toCompletableFuture();
            } catch (RuntimeException e) {
                topic = null;
                listenerId = CompletableFuture.failedFuture(e);
            }
        }
        RTopic subscribed = topic;
        CompletableFuture<Integer> id = listenerId;
        return new Subscription() {
            @Override
            public CompletableFuture<?> confirmed() {
                return id;
            }

            /** Removes the listener once it exists; Redisson unsubscribes when it was the channel's last. */
            @Override
            public void close() {
                if (subscribed != null) {
                    id.thenAccept(subscribed::removeListenerAsync);
                }
            }
        };
    }

    @Override
    public boolean cluster() {
        return cluster;
    }

    @Override
    public boolean stopped() {
        return client.isShuttingDown() || client.isShutdown();
    }

    @Override
    public void close() {
        if (owned && closed.compareAndSet(false, true)) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
