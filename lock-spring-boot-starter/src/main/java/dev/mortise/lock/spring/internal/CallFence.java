package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockLease;

import java.util.Map;

/**
 * The fenced resources of one annotated call ({@code @DistributedLock(fence = ...)}), evaluated
 * before the lock is taken: one resource per lock key (the fence evaluated with {@code #lockKey}
 * bound to that key), and, once the lock is held, the lease whose tokens they are checked with.
 * A single-key lock has one resource, checked with its lease's token; a multi-key lock one per
 * part, each checked with the token of its own part. Immutable.
 */
final class CallFence {

    private final Map<String, String> resourceOfKey;
    private final LockLease lease;

    /** @param resourceOfKey the resource of each key of the call (distinct resources) */
    CallFence(Map<String, String> resourceOfKey) {
        this(Map.copyOf(resourceOfKey), null);
    }

    private CallFence(Map<String, String> resourceOfKey, LockLease lease) {
        this.resourceOfKey = resourceOfKey;
        this.lease = lease;
    }

    /** This fence bound to the call's lease (the one lease, or the {@link MultiKeyLease} of all keys). */
    CallFence boundTo(LockLease held) {
        return new CallFence(resourceOfKey, held);
    }

    /**
     * Checks every resource with its key's token in the transaction running on this thread.
     *
     * @throws IllegalStateException if not {@link #boundTo bound} to a lease
     */
    void check(FenceCheck check, LockOperation operation) {
        if (lease == null) {
            throw new IllegalStateException("The fence of " + operation.describeMethod() + " was checked before its "
                    + "lock was taken");
        }
        if (lease instanceof MultiKeyLease multi) {
            check.checkAll(operation, multi.multi(), resourceOfKey::get);
        } else {
            check.check(operation, resourceOfKey.values().iterator().next(), lease);
        }
    }

    @Override
    public String toString() {
        return resourceOfKey.size() == 1 ? resourceOfKey.values().iterator().next() : resourceOfKey.values().toString();
    }
}
