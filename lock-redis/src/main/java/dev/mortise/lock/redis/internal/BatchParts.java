package dev.mortise.lock.redis.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * A batch split into parts that each go to one Redis Cluster node, and the parts' answers joined
 * into one {@link BatchReply}. {@code WAIT} counts the replicas of the node it is sent to, so with
 * {@code waitForReplicas} each node's writes need their own {@code WAIT} on that node, and the
 * batch is replicated only as far as its least replicated node: the joined count is the fewest
 * over the parts, never their sum. Stateless; thread-safe.
 */
public final class BatchParts {

    private BatchParts() {
    }

    /** The indices of {@code calls} grouped by the slot of each call's routing key, in first-seen order. */
    public static Map<Integer, List<Integer>> bySlot(List<ScriptCall> calls) {
        Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < calls.size(); i++) {
            groups.computeIfAbsent(Crc16.keySlot(routingKey(calls.get(i))), s -> new ArrayList<>()).add(i);
        }
        return groups;
    }

    /** The key a call is routed by; every call in a batch has one (lock scripts always pass their keys). */
    public static String routingKey(ScriptCall call) {
        if (call.routingKey() == null) {
            throw new IllegalArgumentException("a batched call on a Redis Cluster needs a key to route by, "
                    + call.script() + " has none (backend 'redis')");
        }
        return call.routingKey();
    }

    /**
     * Starts {@code part} for each group of call indices (its key: the slot or node it goes to),
     * all of them before waiting for any, and joins the answers: replies in call order, replicas
     * the fewest any part reported. Fails if any part fails.
     */
    public static <K> CompletableFuture<BatchReply> join(List<ScriptCall> calls, Map<K, List<Integer>> groups,
                                                  BiFunction<K, List<ScriptCall>, CompletableFuture<BatchReply>> part) {
        List<List<Integer>> order = new ArrayList<>(groups.size());
        List<CompletableFuture<BatchReply>> answers = new ArrayList<>(groups.size());
        for (Map.Entry<K, List<Integer>> group : groups.entrySet()) {
            List<ScriptCall> subset = new ArrayList<>(group.getValue().size());
            group.getValue().forEach(i -> subset.add(calls.get(i)));
            order.add(group.getValue());
            answers.add(part.apply(group.getKey(), subset));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(none -> {
            Object[] replies = new Object[calls.size()];
            int synced = Integer.MAX_VALUE;
            for (int g = 0; g < order.size(); g++) {
                BatchReply answer = answers.get(g).join();
                List<Integer> group = order.get(g);
                for (int j = 0; j < group.size(); j++) {
                    replies[group.get(j)] = answer.replies().get(j);
                }
                synced = Math.min(synced, answer.syncedReplicas());
            }
            return new BatchReply(java.util.Arrays.asList(replies), order.isEmpty() ? 0 : synced);
        });
    }
}
