package dev.mortise.lock.spring.fencing;

import dev.mortise.lock.fencing.StaleFencingTokenException;

/**
 * Told of each write the auto-configured fence guard refused, on the checking thread, before
 * the refusal is thrown (the starter's metrics count {@code mortise.lock.fence.rejected} with
 * one). Beans of this type are called in order; one that throws is suppressed into the refusal.
 */
@FunctionalInterface
public interface FenceRejectionListener {

    /**
     * @param backend the lock's backend, or {@code unknown} for a check made on the guard directly
     * @param name    the {@code @DistributedLock} name, or {@code programmatic}
     */
    void rejected(String backend, String name, StaleFencingTokenException stale);
}
