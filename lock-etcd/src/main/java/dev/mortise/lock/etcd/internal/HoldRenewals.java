package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.Renewals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Renewing holds: a keep-alive of the hold's lease (with a check of its key)
 * when that lease was asked with the TTL wanted, else a move of its key to a lease of that
 * TTL ({@link LeaseMove}). Renewals and moves of one hold are serialized on its
 * {@link HoldState}, so a move never races another renewal of the same hold. Thread-safe.
 */
final class HoldRenewals {

    private final Renewal renewal;
    private final LeaseMove moves;

    HoldRenewals(Renewal renewal, LeaseMove moves) {
        this.renewal = renewal;
        this.moves = moves;
    }

    /**
     * Renews one hold with {@code lease}.
     *
     * @return the TTL etcd now keeps the hold's key for ({@link Grants#appliedLease}); empty if the hold is gone
     */
    Optional<Duration> renew(Grant grant, Duration lease) {
        HoldState state = grant.state();
        state.moving().lock();
        try {
            EtcdLease current = state.lease();
            if (current.askedTtlSeconds() == LeaseKeeper.ttlSeconds(lease)) {
                return renewal.renewAll(List.of(grant)).isEmpty() ? Optional.of(Grants.appliedLease(current))
                        : Optional.empty();
            }
            return moves.move(grant, lease) ? Optional.of(Grants.appliedLease(state.lease())) : Optional.empty();
        } finally {
            state.moving().unlock();
        }
    }

    /**
     * Renews every hold with {@code lease}. Holds whose lease already has that TTL (the
     * common case: every renewed hold on the session of the default lease) are renewed
     * together, one keep-alive and one check per lease as before; the others are moved one
     * by one. A hold moved by a concurrent {@link #renew} while it was renewed together is
     * renewed again on its new lease, so what is reported is true of the lease it is on:
     * each renewed hold answers the TTL of the lease it was renewed (or moved) on.
     */
    Renewals renewAll(Collection<Grant> grants, Duration lease) {
        long ttl = LeaseKeeper.ttlSeconds(lease);
        List<Grant> together = new ArrayList<>(grants.size());
        List<EtcdLease> leaseOf = new ArrayList<>(grants.size());
        List<Grant> oneByOne = new ArrayList<>();
        for (Grant grant : grants) {
            EtcdLease current = ((HoldState) grant.state()).lease();
            if (current.askedTtlSeconds() == ttl) {
                together.add(grant);
                leaseOf.add(current);
            } else {
                oneByOne.add(grant);
            }
        }
        Set<Grant> gone = new HashSet<>(together.isEmpty() ? Set.of() : renewal.renewAll(together));
        Map<Grant, Duration> applied = new HashMap<>();
        for (int i = 0; i < together.size(); i++) {
            Grant grant = together.get(i);
            if (gone.contains(grant)) {
                continue;
            }
            if (((HoldState) grant.state()).lease() != leaseOf.get(i)) {
                oneByOne.add(grant);
            } else {
                applied.put(grant, Grants.appliedLease(leaseOf.get(i)));
            }
        }
        renewEach(oneByOne, lease, gone, applied);
        return Renewals.of(gone, applied);
    }

    /** {@link #renew} for each of {@code grants}, into {@code gone} or {@code applied}; the first failure is thrown last. */
    private void renewEach(List<Grant> grants, Duration lease, Set<Grant> gone, Map<Grant, Duration> applied) {
        RuntimeException failure = null;
        for (Grant grant : grants) {
            try {
                Optional<Duration> renewed = renew(grant, lease);
                if (renewed.isPresent()) {
                    applied.put(grant, renewed.get());
                } else {
                    gone.add(grant);
                }
            } catch (RuntimeException e) {
                // Renew the others; the failure still tells the core this round trip failed.
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
