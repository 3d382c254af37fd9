package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseGrantResponse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Leases of their own, for holds with an explicit lease: granted per hold (or per part of a
 * batch, in one round trip), never kept alive, so the hold simply expires with its lease.
 * Thread-safe.
 */
final class OwnLeases {

    private final Lease leases;
    private final Rpc rpc;
    private final LeaseRevokes revokes;

    OwnLeases(Lease leases, Rpc rpc, LeaseRevokes revokes) {
        this.leases = leases;
        this.rpc = rpc;
        this.revokes = revokes;
    }

    /** A lease of its own for one explicit-lease hold; nobody keeps it alive once granted. */
    EtcdLease grant(Duration lease, String key) {
        long ttl = LeaseKeeper.ttlSeconds(lease);
        long sentAt = System.nanoTime();
        LeaseGrantResponse response = rpc.await(leases.grant(ttl), key, "grant a lease of " + ttl + " s");
        return new EtcdLease(response.getID(), ttl, response.getTTL(), false, sentAt);
    }

    /**
     * {@code count} leases of their own, for the explicit-lease parts of one batch: the grants
     * are sent together and awaited together, one round trip. If any fails, every lease that is
     * granted anyway is revoked when its answer comes, and the failure is thrown.
     */
    List<EtcdLease> grantAll(Duration lease, int count, String key) {
        long ttl = LeaseKeeper.ttlSeconds(lease);
        long sentAt = System.nanoTime();
        List<CompletableFuture<LeaseGrantResponse>> pending = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                pending.add(leases.grant(ttl));
            }
            rpc.await(CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)), key,
                    "grant " + count + " leases of " + ttl + " s");
        } catch (RuntimeException e) {
            for (CompletableFuture<LeaseGrantResponse> grant : pending) {
                grant.thenAccept(response -> revokes.revokeQuietly(new EtcdLease(response.getID(), ttl, response.getTTL(),
                        false, sentAt)));
            }
            throw e;
        }
        List<EtcdLease> granted = new ArrayList<>(count);
        for (CompletableFuture<LeaseGrantResponse> grant : pending) {
            LeaseGrantResponse response = grant.join();
            granted.add(new EtcdLease(response.getID(), ttl, response.getTTL(), false, sentAt));
        }
        return granted;
    }
}
