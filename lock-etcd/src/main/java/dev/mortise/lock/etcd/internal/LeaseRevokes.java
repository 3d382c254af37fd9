package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import io.etcd.jetcd.Lease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Revoking leases: now and waited for (the keys are gone when it returns), or in the
 * background until etcd confirms. Every revoke marks the lease lost first, so nothing counts
 * on it any more. A lease etcd no longer knows counts as revoked. Thread-safe.
 */
final class LeaseRevokes {

    private static final Logger log = LoggerFactory.getLogger(LeaseRevokes.class);

    private final Lease leases;
    private final Rpc rpc;
    private final ScheduledExecutorService scheduler;

    LeaseRevokes(Lease leases, Rpc rpc, ScheduledExecutorService scheduler) {
        this.leases = leases;
        this.rpc = rpc;
        this.scheduler = scheduler;
    }

    /**
     * Revokes a lease without waiting: its keys go with it. Retried in the background, backing
     * off from 250 ms to 5 s, until etcd confirms it (or answers that the lease is gone
     * already) or the backend closes. A put on the lease whose answer never came may still
     * land later, and on a long explicit lease that key would block its lock for the whole
     * TTL; a confirmed revoke makes such a put fail. A late revoke is harmless: every caller
     * has moved its key off the lease or given it up.
     */
    void revokeQuietly(EtcdLease lease) {
        lease.markLost();
        revokeUntilConfirmed(lease, 0);
    }

    private void revokeUntilConfirmed(EtcdLease lease, int attempt) {
        CompletableFuture<?> revoke;
        try {
            revoke = leases.revoke(lease.id());
        } catch (RuntimeException closed) {
            return; // the client is closed: nothing can be sent any more, the lease expires within its TTL
        }
        revoke.orTimeout(rpc.timeout().toMillis(), TimeUnit.MILLISECONDS).whenComplete((r, e) -> {
            if (e == null || EtcdErrors.isLeaseNotFound(e)) {
                return;
            }
            log.debug("Revoking etcd lease {} failed (attempt {}); retrying", lease, attempt + 1, e);
            try {
                scheduler.schedule(() -> revokeUntilConfirmed(lease, attempt + 1),
                        Math.min(5000, 250L << Math.min(attempt, 5)), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                // the backend is closing: the lease expires within its TTL
            }
        });
    }

    /** Revokes a lease and waits, so its keys are gone when this returns. */
    void revoke(EtcdLease lease, String key) {
        lease.markLost();
        try {
            rpc.await(leases.revoke(lease.id()), key, "revoke lease " + Long.toHexString(lease.id()));
        } catch (LockBackendException e) {
            if (!EtcdErrors.isLeaseNotFound(e)) {
                throw e;
            }
        }
    }

    /**
     * Revokes {@code all} and waits, the revokes sent together: their keys are gone when this
     * returns. A lease etcd no longer knows counts as revoked.
     */
    void revokeAll(List<EtcdLease> all, String key) {
        List<CompletableFuture<Void>> pending = new ArrayList<>(all.size());
        for (EtcdLease lease : all) {
            lease.markLost();
            pending.add(leases.revoke(lease.id()).handle((response, failure) -> {
                if (failure != null && !EtcdErrors.isLeaseNotFound(failure)) {
                    throw new CompletionException(failure);
                }
                return null;
            }));
        }
        rpc.await(CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)), key,
                "revoke " + all.size() + " leases");
    }
}
