package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;

import java.util.List;

/**
 * Getting our key into a lock's queue: queueing on a lease (replacing a session found gone on
 * the way), and refusing a permit count that does not match ({@link QueueExit} takes it out
 * again). Thread-safe; it keeps no state.
 */
final class QueueEntry {

    private final LeaseKeeper leases;
    private final LockQueue queue;
    private final OrphanCleaner orphans;
    private final QueueExit exit;

    QueueEntry(LeaseKeeper leases, LockQueue queue, OrphanCleaner orphans, QueueExit exit) {
        this.leases = leases;
        this.queue = queue;
        this.orphans = orphans;
        this.exit = exit;
    }

    /** Our key in the queue, on {@code lease}. */
    record Queued(EtcdLease lease, long revision, ByteSequence predecessor, long ahead, List<KeyValue> before) {
    }

    /**
     * Gets a lease and puts our key on it. A session found gone on the way (expired,
     * revoked) is replaced and the put tried again; a fence that moved is read again.
     */
    Queued enqueue(LockRequest request, ByteSequence prefix, ByteSequence ownKey) {
        ByteSequence value = Grants.valueOf(request);
        for (int attempt = 1; ; attempt++) {
            EtcdLease lease = lease(request);
            try {
                LockQueue.Enqueued queued = request.takesPermits()
                        ? queue.enqueuePermits(prefix, ownKey, value, lease, request.key())
                        : queue.enqueue(prefix, request.shared(), ownKey, value, lease, request.key());
                if (queued != null) {
                    return new Queued(lease, queued.revision(), queued.predecessor(), queued.ahead(),
                            queued.before());
                }
            } catch (LockQueue.LeaseGoneException e) {
                leases.lost(lease, e);
            } catch (LockBackendException e) {
                if (!EtcdErrors.isLeaseNotFound(e)) {
                    // No answer: the put may still be applied, now or much later.
                    if (lease.shared()) {
                        orphans.poisonLater(lease, ownKey);
                    } else {
                        leases.revokeQuietly(lease);
                    }
                    throw e;
                }
                leases.lost(lease, e);
            }
            if (!lease.shared()) {
                leases.revokeQuietly(lease);
            }
            if (attempt == 3) {
                throw new LockBackendException("etcd kept losing the lease for lock '" + request.key() + "' (backend "
                        + "'etcd') while queueing: it expired or was revoked three times in a row. Check for an operator "
                        + "revoking leases, or a cluster too slow for the lease TTL.", request.key(), EtcdErrors.BACKEND, null);
            }
        }
    }

    private EtcdLease lease(LockRequest request) {
        return request.renewed() ? leases.session(request.lease(), request.key())
                : leases.perLock(request.lease(), request.key());
    }

    /**
     * Whether a permit request that just queued fits ({@link PermitAdmission}). A request whose
     * count differs from the stored one is taken out of the queue again and refused.
     *
     * @throws PermitCountMismatchException if permit keys of the lock carry another count
     */
    PermitAdmission admit(LockRequest request, ByteSequence prefix, ByteSequence ownKey, Queued queued) {
        Permits permits = request.permits();
        PermitAdmission admission = PermitAdmission.onArrival(queued.before(), prefix.size(), permits.count(),
                permits.limit());
        if (admission.mismatch()) {
            exit.leave(ownKey, queued.lease(), request.key());
            throw new PermitCountMismatchException(request.key(), EtcdErrors.BACKEND, admission.stored(), permits.limit());
        }
        return admission;
    }
}
