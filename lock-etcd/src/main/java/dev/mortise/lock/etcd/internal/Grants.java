package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import io.etcd.jetcd.ByteSequence;

import java.time.Duration;

/**
 * How a request's key is written, how its grant is made and what it is worth on the server,
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
        Grant grant = new Grant(request.key(), request.owner(), revision, from, state);
        lease.grants().add(grant);
        return grant;
    }

    /**
     * The TTL etcd keeps the hold's key for, as of the last grant or renewal etcd confirmed:
     * the granted TTL of the lease the key is on (whole seconds, at least etcd's minimum TTL).
     * After a renewal that asked for {@code requested}, the key is on a lease asked with
     * {@code requested} rounded up, so this is never less than {@code requested}.
     */
    static Duration appliedLease(Grant grant) {
        return Duration.ofSeconds(((HoldState) grant.state()).lease().ttlSeconds());
    }
}
