package dev.mortise.lock.redis.internal.lettuce;

import dev.mortise.lock.redis.internal.BatchParts;
import dev.mortise.lock.redis.internal.BatchReply;
import dev.mortise.lock.redis.internal.Crc16;
import dev.mortise.lock.redis.internal.ScriptCall;
import dev.mortise.lock.redis.internal.ScriptRunner;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A batch with {@code WAIT} on a Redis Cluster, which the shared connection will not do: it sends a
 * keyless {@code WAIT} to any node, and {@code WAIT} counts the replicas of the node it reaches. So
 * the calls are grouped by the master that Lettuce's topology gives for the slot of each call's first
 * key, and each group goes out on that master's own connection, followed there by {@code WAIT}; the
 * batch counts the fewest replicas over the masters ({@link BatchParts}). A batch is one call today
 * for an attempt, and one call per slot (so possibly several masters) for {@code renewAll}.
 * Thread-safe.
 */
final class LettuceClusterBatch {

    private LettuceClusterBatch() {
    }

    /**
     * Groups the calls by the master of their slot and sends each group with its {@code WAIT} to that
     * master; {@code refreshTopology} re-reads the Cluster topology in the background when it is found
     * stale.
     */
    static CompletableFuture<BatchReply> send(StatefulRedisClusterConnection<String, String> connection,
                                              List<ScriptCall> calls, int replicas, Duration replicaTimeout,
                                              boolean eval, Runnable refreshTopology) {
        Partitions partitions = connection.getPartitions();
        Map<String, List<Integer>> byMaster = new LinkedHashMap<>();
        for (int i = 0; i < calls.size(); i++) {
            String key = BatchParts.routingKey(calls.get(i));
            int slot = Crc16.keySlot(key);
            RedisClusterNode master = partitions.getMasterBySlot(slot);
            if (master == null) {
                refreshTopology.run();
                return CompletableFuture.failedFuture(new RedisException("the Lettuce topology of the Redis "
                        + "Cluster names no master for slot " + slot + " of '" + ScriptRunner.abbreviate(key)
                        + "' (cluster not ok, or topology stale); nothing was sent. The topology is being "
                        + "refreshed: retry, and check CLUSTER INFO if it persists"));
            }
            byMaster.computeIfAbsent(master.getNodeId(), id -> new ArrayList<>()).add(i);
        }
        return BatchParts.join(calls, byMaster, (nodeId, part) ->
                nodeBatch(connection, nodeId, part, replicas, replicaTimeout, eval, refreshTopology));
    }

    /**
     * Sends {@code calls} and their {@code WAIT} on the connection of master {@code nodeId}. That
     * connection does not follow redirections: a {@code MOVED} or {@code ASK} (the slot moved, or
     * is moving, since Lettuce last read the topology) fails the batch instead of running the
     * write on another node than the one {@code WAIT} asks, and the topology is refreshed so the
     * next attempt goes to the right master.
     */
    private static CompletableFuture<BatchReply> nodeBatch(StatefulRedisClusterConnection<String, String> connection,
                                                           String nodeId, List<ScriptCall> calls, int replicas,
                                                           Duration replicaTimeout, boolean eval,
                                                           Runnable refreshTopology) {
        CompletableFuture<StatefulRedisConnection<String, String>> master;
        try {
            master = connection.getConnectionAsync(nodeId);
        } catch (RuntimeException e) { // a node the topology no longer knows: Lettuce may throw at once
            refreshTopology.run();
            return CompletableFuture.failedFuture(e);
        }
        return master
                .thenCompose(node -> LettuceDispatch.batch(node.async(), calls, replicas, replicaTimeout, eval, false))
                .exceptionallyCompose(failure -> {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    String message = String.valueOf(cause.getMessage());
                    if (!message.startsWith("MOVED") && !message.startsWith("ASK")) {
                        return CompletableFuture.failedFuture(cause);
                    }
                    refreshTopology.run();
                    return CompletableFuture.failedFuture(new RedisException("master " + nodeId + " answered '"
                            + message + "' for '" + ScriptRunner.abbreviate(calls.get(0).routingKey())
                            + "': its slot moved since Lettuce read the Cluster topology, so the write did not run "
                            + "there and nothing is counted as replicated. The topology is being refreshed: retry",
                            cause));
                });
    }
}
