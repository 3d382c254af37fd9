package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Grant;
import io.etcd.jetcd.ByteSequence;

/**
 * Getting our key out of a lock's queue on every way out: a waiter's key now or in the
 * background, and a hold's on release. A key on the session is deleted; a key on a lease of
 * its own goes with the lease, which is revoked. What cannot be confirmed now is retried in
 * the background ({@link OrphanCleaner}, {@link LeaseRevokes}). Thread-safe; it keeps no state.
 */
final class QueueExit {

    private final LeaseKeeper leases;
    private final LockQueue queue;
    private final OrphanCleaner orphans;

    QueueExit(LeaseKeeper leases, LockQueue queue, OrphanCleaner orphans) {
        this.leases = leases;
        this.queue = queue;
        this.orphans = orphans;
    }

    /** Takes our key out of the queue now, so nothing is left when the caller returns. */
    void leave(ByteSequence ownKey, EtcdLease lease, String key) {
        try {
            if (lease.shared()) {
                queue.delete(ownKey, key);
            } else {
                leases.revoke(lease, key);
            }
        } catch (RuntimeException e) {
            orphans.deleteLater(ownKey);
            throw e;
        }
    }

    /** {@link #leave}, a failure left to the background retry {@code leave} has started. */
    void leaveOrLater(ByteSequence ownKey, EtcdLease lease, String key) {
        try {
            leave(ownKey, lease, key);
        } catch (RuntimeException e) {
            // already retried in the background by leave
        }
    }

    /**
     * Takes our key out in the background, without spending another timeout: on the session
     * its key is deleted until etcd confirms, a lease of its own is revoked (its key goes with it).
     */
    void abandon(ByteSequence ownKey, EtcdLease lease) {
        if (lease.shared()) {
            orphans.deleteLater(ownKey);
        } else {
            leases.revokeQuietly(lease);
        }
    }

    /** Ends a hold: deletes its key, revokes a lease of its own (and a stray one a move left). */
    boolean release(Grant grant) {
        HoldState state = grant.state();
        boolean held;
        try {
            held = queue.delete(state.ownKey(), grant.key());
        } catch (RuntimeException e) {
            orphans.deleteLater(state.ownKey());
            throw e;
        } finally {
            state.lease().grants().remove(grant);
        }
        if (!state.lease().shared()) {
            leases.revokeQuietly(state.lease());
        }
        EtcdLease stray = state.stray();
        if (stray != null) {
            leases.revokeQuietly(stray); // our key is deleted: it may have been on this lease, but is not any more
        }
        return held;
    }
}
