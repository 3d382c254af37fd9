package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockLease;

/**
 * Ties a lease acquired inside a running transaction to that transaction: checked before
 * commit, released after completion. Implemented when Spring's transaction support is on
 * the classpath.
 */
public interface TransactionBinding {

    /**
     * If a transaction is active on this thread, registers {@code lease} with it
     * ({@link LockLease#ensureValid()} before commit, {@code release} after commit or
     * rollback) and returns true; otherwise returns false and the caller releases.
     */
    boolean bind(LockLease lease, Runnable release);
}
