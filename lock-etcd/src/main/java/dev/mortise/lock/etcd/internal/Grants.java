package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import io.etcd.jetcd.ByteSequence;

import java.time.Duration;

/**
 * How a request's key is written, how its grant is made and what lease etcd keeps it for,
 * the same for a single acquire, a waiter and a batch part, so that release, renewal, moves
 * and inspection treat every grant alike. Stateless.
 */
final class Grants {

    private Grants() {
    }

    /** What our key holds: the owner, or for a permit request its count, the limit and the owner. */
    static ByteSequence valueOf(LockRequest request) {
        Permits permits = request.permits();
        return permits == null ? KeySpace.bytes(request.owner())
                : new PermitValue(permits.count(), permits.limit(), request.owner()).bytes();
    }

    /**
     * A grant whose local validity counts from {@code requestedAt}, or from earlier if the
     * lease was last confirmed so long ago that it could run out sooner.
     */
    static Grant grant(LockRequest request, ByteSequence ownKey, long revision, EtcdLease lease, long requestedAt) {
        long from = Math.min(requestedAt, lease.aliveUntilNanos() - request.lease().toNanos());
        HoldState state = new HoldState(ownKey, revision, request.shared(), lease);
        if (request.takesPermits()) {
            state.value(valueOf(request)); // a move must keep it (LeaseMove)
        }
        Grant grant = new Grant(request.key(), request.owner(), revision, from, appliedLease(lease), state);
        lease.grants().add(grant);
        return grant;
    }

    /**
     * The TTL etcd keeps a key on {@code lease} for: the granted TTL of the lease (whole seconds,
     * at least etcd's minimum TTL, never less than asked). What a grant on it carries, and what a
     * renewal that left (or moved) the key on it answers.
     */
    static Duration appliedLease(EtcdLease lease) {
        return Duration.ofSeconds(lease.ttlSeconds());
    }
}
