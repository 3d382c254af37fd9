package dev.mortise.lock.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * What every {@link LockView} of one client shares: the leases taken through views, per thread,
 * key and mode (exclusive, shared), so that every view of a key in one mode is one Lock, and the
 * acquire the views take keys with. Thread-safe (the stacks are the calling thread's own).
 */
final class LockViews {

    private final Acquirer acquirer;
    private final String backendName;
    private final ThreadLocal<Map<String, Deque<LockLease>>> exclusive = ThreadLocal.withInitial(HashMap::new);
    private final ThreadLocal<Map<String, Deque<LockLease>>> shared = ThreadLocal.withInitial(HashMap::new);

    LockViews(Acquirer acquirer, String backendName) {
        this.acquirer = acquirer;
        this.backendName = backendName;
    }

    String backendName() {
        return backendName;
    }

    /**
     * Acquires for a view: the calling thread's lease on {@code key} in {@code mode}, with the
     * explicit {@code lease} (null: renewed), or null on timeout.
     */
    LockLease acquire(String key, Duration wait, Duration lease, LockMode mode, boolean throwOnTimeout) {
        return acquirer.attempt(key, wait, lease, null, mode, throwOnTimeout);
    }

    /** The calling thread's stack of leases taken through views of {@code key} in {@code mode}, shared by every such view. */
    Deque<LockLease> leases(String key, LockMode mode) {
        return of(mode).get().computeIfAbsent(key, k -> new ArrayDeque<>());
    }

    /** Forgets the calling thread's stack for {@code key} in {@code mode} once it is empty. */
    void leasesDone(String key, LockMode mode) {
        Map<String, Deque<LockLease>> mine = of(mode).get();
        Deque<LockLease> stack = mine.get(key);
        if (stack != null && stack.isEmpty()) {
            mine.remove(key);
        }
    }

    private ThreadLocal<Map<String, Deque<LockLease>>> of(LockMode mode) {
        return mode == LockMode.SHARED ? shared : exclusive;
    }
}
