package dev.mortise.lock.redis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The wait records of deadlock detection on one Redis deployment, as script calls: under each holder
 * id a string {@code <prefix>:waits:{<holder id>}} ({@link RedisKeys#waitRecord}) holding
 * {@code <nonce>:<text>}, with the record's TTL as its {@code PX} expiry, so the server itself
 * expires it and nothing of it is left afterwards. {@code wait-publish.lua} writes ({@code SET ... PX}),
 * {@code wait-remove.lua} deletes only the records that still bear the nonce (compare and delete in
 * one script) and {@code wait-read.lua} reads ({@code GET}), writing nothing.
 *
 * <p>One script call per group of holder ids: all of them on a single server or Sentinel group, one
 * group per Cluster slot otherwise (each holder id is its own hash tag). Several calls go out as one
 * pipelined batch, so every operation is one round trip per node. The futures are the callers' to
 * wait for (the operation timeout, or Redlock's node timeout); a {@code NOSCRIPT} answer is retried
 * once with {@code EVAL}. Stateless; thread-safe.
 */
public final class WaitRecordCommands {

    /** {@code wait-publish.lua}: KEYS the records of one slot, ARGV nonce, text, TTL ms; replies the count. */
    static final LuaScript PUBLISH = LuaFiles.alone("wait-publish");
    /** {@code wait-remove.lua}: KEYS the records of one slot, ARGV nonce; replies how many it deleted. */
    static final LuaScript REMOVE = LuaFiles.alone("wait-remove");
    /** {@code wait-read.lua}: KEYS the records of one slot; replies each value, or '' where there is none. */
    static final LuaScript READ = LuaFiles.alone("wait-read");

    private final Deployment deployment;

    WaitRecordCommands(Deployment deployment) {
        this.deployment = deployment;
    }

    /** The TTL a publish applies for {@code ttl}: whole milliseconds, rounded up, at least 1. */
    public static Duration applied(Duration ttl) {
        long millis = ttl.toMillis();
        if (Duration.ofMillis(millis).compareTo(ttl) < 0) {
            millis++;
        }
        return Duration.ofMillis(Math.max(1, millis));
    }

    /** Writes {@code <nonce>:<text>} under each holder id with {@code ttl} ({@link #applied}); replies by call. */
    public CompletableFuture<List<Object>> publishAsync(Collection<String> holderIds, String nonce, String text, Duration ttl) {
        String millis = Long.toString(applied(ttl).toMillis());
        return run(holderIds, names -> ScriptCall.of(PUBLISH, ScriptReturn.LONG, names, nonce, text, millis));
    }

    /** Deletes the records of {@code holderIds} that still bear {@code nonce}; replies by call. */
    public CompletableFuture<List<Object>> removeAsync(Collection<String> holderIds, String nonce) {
        return run(holderIds, names -> ScriptCall.of(REMOVE, ScriptReturn.LONG, names, nonce));
    }

    /** The stored records of {@code holderIds}: {@code <nonce>:<text>} by holder id, without those that have none. */
    public CompletableFuture<Map<String, String>> readAsync(Collection<String> holderIds) {
        List<List<String>> groups = groups(holderIds);
        return replies(groups, names -> ScriptCall.of(READ, ScriptReturn.LIST, names)).thenApply(replies -> {
            Map<String, String> found = new LinkedHashMap<>();
            for (int g = 0; g < groups.size(); g++) {
                List<?> values = (List<?>) replies.get(g);
                for (int i = 0; i < values.size(); i++) {
                    Object value = values.get(i);
                    if (value != null && !value.toString().isEmpty()) {
                        found.put(groups.get(g).get(i), value.toString());
                    }
                }
            }
            return found;
        });
    }

    /** The text of a stored record {@code <nonce>:<text>} (the nonce has no colon). */
    public static String text(String stored) {
        return stored.substring(stored.indexOf(':') + 1);
    }

    private CompletableFuture<List<Object>> run(Collection<String> holderIds,
                                                Function<List<Object>, ScriptCall> call) {
        return replies(groups(holderIds), call);
    }

    /** The distinct holder ids, one group per Cluster slot (one group in all elsewhere); none for none. */
    private List<List<String>> groups(Collection<String> holderIds) {
        Map<Integer, List<String>> groups = new LinkedHashMap<>();
        for (String holderId : new LinkedHashSet<>(holderIds)) {
            int slot = deployment.cluster() ? Crc16.keySlot(deployment.waitRecord(holderId)) : 0;
            groups.computeIfAbsent(slot, s -> new ArrayList<>()).add(holderId);
        }
        return new ArrayList<>(groups.values());
    }

    /** One call per group (its holder ids' names as KEYS): as one call, or one pipelined batch; replies by group. */
    private CompletableFuture<List<Object>> replies(List<List<String>> groups, Function<List<Object>, ScriptCall> call) {
        if (groups.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        List<ScriptCall> calls = new ArrayList<>(groups.size());
        for (List<String> group : groups) {
            List<Object> names = new ArrayList<>(group.size());
            group.forEach(holderId -> names.add(deployment.waitRecord(holderId)));
            calls.add(call.apply(names));
        }
        ScriptRunner runner = deployment.runner();
        if (calls.size() == 1) {
            return runner.<Object>callAsync(calls.get(0)).thenApply(Collections::singletonList);
        }
        return runner.sendBatch(calls, 0, Duration.ZERO, false)
                .exceptionallyCompose(e -> ScriptRunner.isNoScript(e) ? runner.sendBatch(calls, 0, Duration.ZERO, true)
                        : CompletableFuture.failedFuture(e))
                .thenApply(BatchReply::replies);
    }
}
