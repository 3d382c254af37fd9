package dev.mortise.lock.redis.internal.lettuce;

import dev.mortise.lock.redis.internal.BatchReply;
import dev.mortise.lock.redis.internal.ScriptCall;
import dev.mortise.lock.redis.internal.ScriptReturn;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Script calls and pipelined batches written on one Lettuce connection. Per call it builds the
 * command's arguments and output and nothing else: the script's SHA-1 (and source) are encoded once
 * per script ({@code LuaScript.shaBytes()}), keys and arguments are written straight from the
 * {@link ScriptCall} into the network buffer ({@link ScriptArgs}; on a Cluster, Lettuce's own argument
 * list, which it routes by), and the future handed back is Lettuce's own command (no adapter, no
 * thread hop: it completes on Lettuce's I/O thread). Stateless; thread-safe.
 */
final class LettuceDispatch {

    static final StringCodec CODEC = StringCodec.UTF8;

    private LettuceDispatch() {
    }

    /**
     * @param routed whether {@code async} is a Cluster connection, which routes by Lettuce's own
     *               argument list; a single node's connection takes {@link ScriptArgs}
     */
    @SuppressWarnings("unchecked")
    static <T> CompletableFuture<T> dispatch(BaseRedisAsyncCommands<String, String> async, ScriptCall call,
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
     * Sends {@code calls} and then, with {@code replicas}, {@code WAIT} on {@code async}, from this
     * thread one after the other: they reach the connection in this order, so WAIT follows the
     * writes it waits for (and counts any other writes sent before it too).
     */
    static CompletableFuture<BatchReply> batch(BaseRedisAsyncCommands<String, String> async, List<ScriptCall> calls,
                                               int replicas, Duration replicaTimeout, boolean eval, boolean routed) {
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
}
