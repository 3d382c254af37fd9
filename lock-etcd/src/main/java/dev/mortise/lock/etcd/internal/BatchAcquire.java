package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;

import java.util.ArrayList;
import java.util.List;

/**
 * Several locks together, all or nothing, behind
 * {@link dev.mortise.lock.etcd.EtcdLockBackend#tryAcquireAll}: every part's key is put, and
 * what keeps each part waiting is read, in one transaction ({@link BatchQueue#enqueueAll}), so
 * etcd creates all the keys at one revision or none. If every part is first in its queue (a
 * reader: no writer key before it) the parts are granted; otherwise every key is taken out
 * again before returning. Each part is queued exactly as a single {@code tryAcquire} queues
 * it: the same key (round 0 of its owner, a reader key for a shared part), the same value,
 * the same lease (the session lease of the batch's TTL for renewed parts, a lease of its own
 * for each explicit-lease part), so release, renewal, moves and inspection treat batch grants
 * as any others. Thread-safe; it keeps no state.
 *
 * <p>Requests: renewed parts on an existing session, one {@code Txn}; explicit-lease parts,
 * one {@code LeaseGrant} per part, sent together, then the {@code Txn}. A refusal adds one
 * {@code Txn} of deletes (renewed parts) or one {@code LeaseRevoke} per part, sent together
 * (explicit leases). More parts than {@link #MAX_PARTS} are not batched, nor parts that a
 * cluster with a lower {@code --max-txn-ops} refuses to take in one transaction.
 */
final class BatchAcquire {

    /**
     * The most parts one transaction carries: two operations a part (the read and the put),
     * and etcd refuses transactions of more than {@code --max-txn-ops} operations, 128 by default.
     */
    static final int MAX_PARTS = 64;

    private final KeySpace keys;
    private final LeaseKeeper leases;
    private final BatchQueue queue;
    private final OrphanCleaner orphans;

    BatchAcquire(KeySpace keys, LeaseKeeper leases, BatchQueue queue, OrphanCleaner orphans) {
        this.keys = keys;
        this.leases = leases;
        this.queue = queue;
        this.orphans = orphans;
    }

    /**
     * @param requests distinct keys, fresh owners, one lease and one {@code renewed} flag
     * @return one grant per request in request order, empty if a part must wait (nothing of
     *         this call is then left on the server), or null for more than {@link #MAX_PARTS}
     *         parts (nothing sent) or when etcd refuses a transaction that large (a
     *         {@code --max-txn-ops} below 128; nothing applied)
     * @throws LockBackendException if etcd did not answer; what the call may have put is then
     *                              removed in the background, as after a single attempt
     */
    List<Grant> tryAcquireAll(List<LockRequest> requests) {
        if (requests.isEmpty() || requests.size() > MAX_PARTS) {
            return null;
        }
        LockRequest first = requests.get(0);
        String key = first.key(); // names the batch in messages
        long requestedAt = System.nanoTime();
        for (int attempt = 1; ; attempt++) {
            List<EtcdLease> leaseOf = leases(requests);
            List<BatchQueue.Part> parts = parts(requests, leaseOf);
            BatchQueue.EnqueuedAll queued = null;
            try {
                queued = queue.enqueueAll(parts, key);
            } catch (LockQueue.LeaseGoneException e) {
                leases.lost(leaseOf.get(0), e);
            } catch (LockBackendException e) {
                if (EtcdErrors.isTooManyOps(e)) {
                    // A cluster run with a --max-txn-ops below 128 refused the transaction unapplied.
                    if (!first.renewed()) {
                        leaseOf.forEach(leases::revokeQuietly);
                    }
                    return null;
                }
                if (EtcdErrors.isLeaseNotFound(e)) {
                    if (first.renewed()) {
                        leases.lost(leaseOf.get(0), e);
                    }
                } else {
                    giveUp(parts, leaseOf);
                    throw e;
                }
            }
            if (queued != null && queued.allFree()) {
                List<Grant> grants = new ArrayList<>(requests.size());
                for (int i = 0; i < requests.size(); i++) {
                    grants.add(Grants.grant(requests.get(i), parts.get(i).ownKey(), queued.revision(),
                            leaseOf.get(i), requestedAt));
                }
                return grants;
            }
            if (queued != null) {
                leaveQueues(parts, leaseOf, key);
                return List.of();
            }
            if (!first.renewed()) {
                leaseOf.forEach(leases::revokeQuietly);
            }
            if (attempt == 3) {
                throw new LockBackendException("etcd kept losing the lease for lock '" + key + "' and "
                        + (requests.size() - 1) + " other(s) taken together (backend 'etcd'): it expired or was "
                        + "revoked three times in a row while queueing. Check for an operator revoking leases, or a "
                        + "cluster too slow for the lease TTL.", key, EtcdErrors.BACKEND, null);
            }
        }
    }

    /** The lease of each part: the one session lease of the batch's TTL, or a lease of its own per part. */
    private List<EtcdLease> leases(List<LockRequest> requests) {
        LockRequest first = requests.get(0);
        if (first.renewed()) {
            EtcdLease session = leases.session(first.lease(), first.key());
            return requests.stream().map(r -> session).toList();
        }
        return leases.perLock(first.lease(), requests.size(), first.key());
    }

    private List<BatchQueue.Part> parts(List<LockRequest> requests, List<EtcdLease> leaseOf) {
        List<BatchQueue.Part> parts = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            LockRequest request = requests.get(i);
            ByteSequence prefix = keys.prefix(request.key());
            parts.add(new BatchQueue.Part(prefix, request.shared(), keys.keyOf(request, prefix, 0),
                    KeySpace.bytes(request.owner()), leaseOf.get(i)));
        }
        return parts;
    }

    /**
     * Takes every key of a refused batch out now, so nothing of it is left when the caller
     * returns: one transaction of deletes on the session, or the revokes of the parts' own leases.
     */
    private void leaveQueues(List<BatchQueue.Part> parts, List<EtcdLease> leaseOf, String key) {
        List<ByteSequence> ownKeys = parts.stream().map(BatchQueue.Part::ownKey).toList();
        try {
            if (leaseOf.get(0).shared()) {
                queue.deleteAll(ownKeys, key);
            } else {
                leases.revokeAll(leaseOf, key);
            }
        } catch (RuntimeException e) {
            ownKeys.forEach(orphans::deleteLater);
            if (!leaseOf.get(0).shared()) {
                leaseOf.forEach(leases::revokeQuietly);
            }
            throw e;
        }
    }

    /**
     * The batch's transaction got no answer: it may still be applied, now or much later. On the
     * session, its fence moves and every key is deleted in one transaction (a late put then
     * fails its fence compare); explicit leases are revoked, which takes their keys with them.
     */
    private void giveUp(List<BatchQueue.Part> parts, List<EtcdLease> leaseOf) {
        EtcdLease lease = leaseOf.get(0);
        if (lease.shared()) {
            orphans.poisonLater(lease, parts.stream().map(BatchQueue.Part::ownKey).toList());
        } else {
            leaseOf.forEach(leases::revokeQuietly);
        }
    }
}
