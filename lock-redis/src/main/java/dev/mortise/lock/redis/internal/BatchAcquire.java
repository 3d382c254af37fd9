package dev.mortise.lock.redis.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The batch family: every request or none ({@code LockBackend.tryAcquireAll}), one
 * {@code acquire-all.lua} call per cluster slot, which checks every part as the exclusive and shared
 * acquires would before it takes any. Thread-safe.
 */
public final class BatchAcquire {

    /** {@code acquire-all.lua}: {1, token per part} or {0, index of the busy part, its PTTL or -1}. */
    static final LuaScript ACQUIRE_ALL = LuaFiles.withPrelude("acquire-all");

    private final Deployment deployment;
    private final HoldCommands holds;

    BatchAcquire(Deployment deployment, HoldCommands holds) {
        this.deployment = deployment;
        this.holds = holds;
    }

    /**
     * Takes every request or none: one {@link #ACQUIRE_ALL} call per cluster slot (one in all on a single
     * server or Sentinel group), slots in the order of their first request, each sent once the one before
     * it granted. A refused slot took nothing; the slots granted before it are released (waiting for the
     * server's first answer) and the answer is empty. A call that failed or got no answer in time is
     * cancelled, with every slot before it ({@link HoldCommands#cancelAsync}: a late arrival is refused),
     * and its failure thrown.
     *
     * @return the grants in request order, empty if a key was busy, or {@code null} where this
     *         deployment sends no batch: fair mode (its waiters queue per key) and
     *         {@code waitForReplicas} (each write is followed by {@code WAIT})
     * @throws LockBackendException if a call failed or timed out, or the release of the slots taken
     *                              before a busy one was not confirmed (it is retried in the background)
     */
    public List<Grant> acquireAll(List<LockRequest> requests) {
        if (deployment.fair() || deployment.replicas() > 0 || requests.isEmpty()) {
            return null;
        }
        int n = requests.size();
        ScriptRunner runner = deployment.runner();
        runner.ensureReady(requests.get(0).key());
        RedisKeys[] names = new RedisKeys[n];
        Map<Integer, List<Integer>> slots = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            names[i] = deployment.keys(requests.get(i).key());
            slots.computeIfAbsent(deployment.cluster() ? names[i].slot() : 0, slot -> new ArrayList<>()).add(i);
        }
        String what = "acquire " + n + " locks together, including";
        Grant[] grants = new Grant[n];
        List<Integer> taken = new ArrayList<>(n);
        for (List<Integer> slot : slots.values()) {
            ScriptCall call = acquireAllCall(slot, requests, names);
            long requestedAt = System.nanoTime();
            List<Object> reply;
            try {
                reply = runner.await(runner.send(call, false), () -> runner.send(call, true), runner.timeout(),
                        requests.get(slot.get(0)).key(), what);
            } catch (LockBackendException e) {
                taken.addAll(slot);
                for (int i : taken) {
                    holds.cancelAsync(names[i], requests.get(i).owner(), requests.get(i).lease());
                }
                throw e;
            }
            if (((Number) reply.get(0)).longValue() != 1) {
                giveBack(taken, requests, names);
                return List.of();
            }
            for (int j = 0; j < slot.size(); j++) {
                int i = slot.get(j);
                grants[i] = Attempts.grant(requests.get(i), names[i], ((Number) reply.get(j + 1)).longValue(),
                        requestedAt);
                taken.add(i);
            }
        }
        return List.of(grants);
    }

    private ScriptCall acquireAllCall(List<Integer> slot, List<LockRequest> requests, RedisKeys[] names) {
        List<Object> keys = new ArrayList<>(slot.size() * 5);
        Object[] args = new Object[slot.size() + 3];
        StringBuilder modes = new StringBuilder(slot.size());
        for (int j = 0; j < slot.size(); j++) {
            LockRequest request = requests.get(slot.get(j));
            RedisKeys k = names[slot.get(j)];
            keys.add(k.lock());
            keys.add(k.fence());
            keys.add(k.cancelled(request.owner()));
            keys.add(k.readers());
            keys.add(k.writers());
            modes.append(request.shared() ? 'S' : 'X');
            args[j + 3] = request.owner();
        }
        args[0] = MillisText.millis(requests.get(0).lease());
        args[1] = deployment.clock();
        args[2] = modes.toString();
        return ScriptCall.of(ACQUIRE_ALL, ScriptReturn.LIST, keys, args);
    }

    /**
     * Releases the grants of the slots taken before a busy one, all sent at once; each is retried in
     * the background until confirmed, and this waits for the first answers (the operation timeout).
     */
    private void giveBack(List<Integer> taken, List<LockRequest> requests, RedisKeys[] names) {
        ScriptRunner runner = deployment.runner();
        List<CompletableFuture<Long>> releases = new ArrayList<>(taken.size());
        for (int i : taken) {
            LockRequest request = requests.get(i);
            releases.add(CleanUps.send(runner, holds.release(names[i], request.owner(), request.shared()),
                    CleanUps.deadlineAfter(deployment.horizon(request.lease()))));
        }
        for (int r = 0; r < releases.size(); r++) {
            String key = requests.get(taken.get(r)).key();
            try {
                runner.await(releases.get(r), runner.timeout(), key, "give back, after another key was busy,");
            } catch (LockBackendException e) {
                throw new LockBackendException("Backend 'redis' (" + runner.where() + ") took lock '"
                        + ScriptRunner.abbreviate(key) + "' as part of a multi-key request whose other part was busy, "
                        + "and could not confirm its release: " + e.getMessage() + " The release is retried in the "
                        + "background; the hold ends with its lease (" + requests.get(0).lease().toMillis()
                        + " ms) at the latest. Check that the server is reachable.", key, "redis", e);
            }
        }
    }
}
