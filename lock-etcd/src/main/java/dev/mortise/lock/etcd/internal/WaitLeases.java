package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * The etcd leases of the wait records ({@link EtcdWaitRecords}): one lease per nonce, granted on
 * its first publish with the record's TTL and never kept alive in the background, so etcd expires
 * it (and the keys on it) once nobody republishes. A republish of the same nonce and TTL keeps the
 * same lease alive (one keep-alive, sent with the puts) instead of granting another; a new TTL, or a
 * lease etcd no longer knows, gets a new lease. A remove that takes the last holder id published
 * under a nonce revokes its lease, so no lease outlives its records; a lease left with nothing on
 * it otherwise (a remove that never came) expires within its TTL.
 *
 * <p>Thread-safe: calls for one nonce are serialized by its slot's lock, calls for different
 * nonces run in parallel. Every wait is bounded by the caller's deadline.
 */
final class WaitLeases implements AutoCloseable {

    /** One nonce's lease and the holder ids published on it. Guarded by {@link #lock}. */
    private static final class Slot {
        final ReentrantLock lock = new ReentrantLock();
        final Set<String> ids = new HashSet<>();
        EtcdLease lease;
        boolean detached;
    }

    private final Lease leases;
    private final LeaseKeeper keeper;
    private final Rpc rpc;
    private final ConcurrentHashMap<String, Slot> byNonce = new ConcurrentHashMap<>();

    WaitLeases(Lease leases, LeaseKeeper keeper, Rpc rpc) {
        this.leases = leases;
        this.keeper = keeper;
        this.rpc = rpc;
    }

    /**
     * Puts {@code ids} on the lease of {@code nonce} with {@code puts} (given the lease id, the future
     * of the puts): on its live lease of that TTL, kept alive in the same round trip, else on a new
     * lease granted first.
     *
     * @return the TTL etcd applies (granted or renewed), at least {@code ttl} rounded up to seconds
     */
    Duration publish(String nonce, Duration ttl, Collection<String> ids, long deadline,
                     LongFunction<CompletableFuture<?>> puts) {
        sweep();
        long asked = LeaseKeeper.ttlSeconds(ttl);
        while (true) {
            Slot slot = byNonce.computeIfAbsent(nonce, n -> new Slot());
            lock(slot, deadline);
            try {
                if (slot.detached) {
                    continue; // removed meanwhile: start afresh
                }
                EtcdLease lease = slot.lease;
                if (lease != null && lease.askedTtlSeconds() == asked && !lease.isLost()
                        && lease.aliveUntilNanos() - System.nanoTime() > 0) {
                    Long kept = keepAndPut(slot, ids, deadline, puts);
                    if (kept != null) {
                        return Duration.ofSeconds(kept);
                    }
                }
                return Duration.ofSeconds(grantAndPut(slot, asked, ids, deadline, puts));
            } finally {
                slot.lock.unlock();
            }
        }
    }

    /** The keep-alive and the puts sent together; null if etcd no longer knows the lease. */
    private Long keepAndPut(Slot slot, Collection<String> ids, long deadline, LongFunction<CompletableFuture<?>> puts) {
        EtcdLease lease = slot.lease;
        long sentAt = System.nanoTime();
        CompletableFuture<LeaseKeepAliveResponse> alive = rpc.retrying(() -> leases.keepAliveOnce(lease.id()), deadline);
        CompletableFuture<?> written = puts.apply(lease.id());
        try {
            rpc.await(CompletableFuture.allOf(alive, written), deadline, EtcdWaitRecords.WHAT,
                    "rewrite " + ids.size() + " wait records on lease " + Long.toHexString(lease.id()));
        } catch (LockBackendException e) {
            if (!EtcdErrors.isLeaseNotFound(e)) {
                throw e;
            }
            lease.markLost();
            return null;
        }
        long ttl = alive.join().getTTL();
        if (ttl <= 0) {
            lease.markLost();
            return null;
        }
        lease.confirmed(sentAt, ttl);
        slot.ids.addAll(ids);
        return Math.max(lease.askedTtlSeconds(), ttl);
    }

    /**
     * A new lease, then the puts on it. The nonce's former lease is revoked if every id it carried
     * has just moved to the new one; otherwise it is left to expire with what is still on it.
     */
    private long grantAndPut(Slot slot, long asked, Collection<String> ids, long deadline,
                             LongFunction<CompletableFuture<?>> puts) {
        long sentAt = System.nanoTime();
        // Never retried: a grant is not idempotent. A lease granted after we gave up has nothing on it and expires.
        LeaseGrantResponse granted = rpc.await(leases.grant(asked), deadline, EtcdWaitRecords.WHAT,
                "grant a wait-record lease of " + asked + " s");
        EtcdLease lease = new EtcdLease(granted.getID(), asked, granted.getTTL(), false, sentAt);
        try {
            rpc.await(puts.apply(lease.id()), deadline, EtcdWaitRecords.WHAT, "write " + ids.size() + " wait records");
        } catch (RuntimeException e) {
            keeper.revokeQuietly(lease);
            throw e;
        }
        EtcdLease former = slot.lease;
        if (former != null && ids.containsAll(slot.ids)) {
            keeper.revokeQuietly(former);
        }
        slot.lease = lease;
        slot.ids.clear();
        slot.ids.addAll(ids);
        return lease.ttlSeconds();
    }

    /**
     * Forgets {@code ids} under {@code nonce}; when none is left, revokes the nonce's lease (etcd then
     * deletes every key still on it, all of them keys of this nonce). The revoke is sent now and its
     * future answered; a revoke that fails is retried in the background and does not fail the caller
     * (the lease has nothing the caller still needs, and expires within its TTL anyway).
     */
    CompletableFuture<Void> forget(String nonce, Collection<String> ids, long deadline) {
        Slot slot = byNonce.get(nonce);
        if (slot == null || !tryLock(slot, deadline)) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            slot.ids.removeAll(ids);
            if (slot.detached || !slot.ids.isEmpty() || slot.lease == null) {
                return CompletableFuture.completedFuture(null);
            }
            slot.detached = true;
            byNonce.remove(nonce, slot);
            EtcdLease lease = slot.lease;
            lease.markLost();
            return leases.revoke(lease.id()).handle((revoked, failure) -> {
                if (failure != null && !EtcdErrors.isLeaseNotFound(failure)) {
                    keeper.revokeQuietly(lease);
                }
                return null;
            });
        } finally {
            slot.lock.unlock();
        }
    }

    /** How many nonces have a lease tracked here (a test hook). */
    int tracked() {
        return byNonce.size();
    }

    /** Drops the slots whose lease etcd has certainly expired (nobody republished for a whole TTL past it). */
    private void sweep() {
        long now = System.nanoTime();
        byNonce.forEach((nonce, slot) -> {
            EtcdLease lease = slot.lease;
            if (lease != null && now - lease.aliveUntilNanos() - TimeUnit.SECONDS.toNanos(lease.ttlSeconds()) > 0
                    && slot.lock.tryLock()) {
                try {
                    if (slot.lease == lease) {
                        slot.detached = true;
                        byNonce.remove(nonce, slot);
                    }
                } finally {
                    slot.lock.unlock();
                }
            }
        });
    }

    private void lock(Slot slot, long deadline) {
        if (!tryLock(slot, deadline)) {
            throw new LockBackendException("Another call for the same wait record kept it busy past the operation "
                    + "timeout of " + rpc.timeout() + " (backend 'etcd'); the record was not written. Raise "
                    + "EtcdLockBackendBuilder.operationTimeout if etcd is slow.", EtcdWaitRecords.WHAT, EtcdErrors.BACKEND,
                    null);
        }
    }

    private static boolean tryLock(Slot slot, long deadline) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return slot.lock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true; // a short, bounded wait: the flag is set again for the caller
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Revokes every tracked lease in the background: the backend's waits are over. */
    @Override
    public void close() {
        byNonce.forEach((nonce, slot) -> {
            EtcdLease lease = slot.lease;
            if (lease != null) {
                keeper.revokeQuietly(lease);
            }
        });
        byNonce.clear();
    }
}
