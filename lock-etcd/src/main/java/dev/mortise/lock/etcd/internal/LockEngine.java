package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The etcd lock protocol behind {@link dev.mortise.lock.etcd.EtcdLockBackend}: queue under
 * the lock's prefix, hold when first (a reader: when no writer is before it), wait on the
 * predecessor, clean up on every way out. Shared and exclusive requests differ only in
 * their key's name and in which keys before theirs they wait for ({@link LockQueue}).
 * Thread-safe; it keeps no per-lock state beyond the holds on each lease (to report their
 * loss).
 */
public final class LockEngine implements AutoCloseable {

    private final KeySpace keys;
    private final Rpc rpc;
    private final LeaseKeeper leases;
    private final LockQueue queue;
    private final OrphanCleaner orphans;
    private final Renewal renewal;
    private final LeaseMove moves;
    private final KeyInspection inspection;
    private final BatchAcquire batch;
    private final Client client;

    public LockEngine(Client client, KeySpace keys, Duration operationTimeout) {
        this.client = client;
        this.keys = keys;
        this.rpc = new Rpc(operationTimeout);
        this.leases = new LeaseKeeper(client.getLeaseClient(), client.getKVClient(), keys, rpc);
        this.queue = new LockQueue(client.getKVClient(), rpc);
        this.orphans = new OrphanCleaner(client.getKVClient(), rpc, leases.scheduler());
        this.renewal = new Renewal(leases, queue, rpc);
        this.moves = new LeaseMove(client.getKVClient(), leases, rpc);
        this.inspection = new KeyInspection(client.getKVClient(), client.getLeaseClient(), keys, rpc);
        this.batch = new BatchAcquire(keys, leases, queue, orphans);
    }

    public void addGrantListener(GrantListener listener) {
        leases.addListener(listener);
    }

    public Attempt tryAcquire(LockRequest request) {
        String key = request.key();
        ByteSequence prefix = keys.prefix(key);
        ByteSequence ownKey = ownKey(request, prefix, 0);
        long requestedAt = System.nanoTime();
        Queued queued = enqueue(request, prefix, ownKey);
        EtcdLease lease = queued.lease();
        if (queued.predecessor() == null) {
            return Attempt.granted(grant(request, ownKey, queued.revision(), lease, requestedAt));
        }
        // Busy: never leave a waiter key behind for an attempt that does not wait.
        leaveQueue(ownKey, queued.revision(), lease, key);
        return Attempt.busy(null);
    }

    /** Several keys in one transaction, all or nothing: see {@link BatchAcquire}. */
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        return batch.tryAcquireAll(requests);
    }

    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        String key = request.key();
        long deadline = Deadlines.after(System.nanoTime(), wait);
        ByteSequence prefix = keys.prefix(key);
        Waiter waiter = new Waiter(leases, queue, client.getWatchClient(), rpc);
        for (int round = 0; ; round++) {
            ByteSequence ownKey = ownKey(request, prefix, round);
            long requestedAt = System.nanoTime();
            Queued queued = enqueue(request, prefix, ownKey);
            EtcdLease lease = queued.lease();
            if (queued.predecessor() == null) {
                return Optional.of(grant(request, ownKey, queued.revision(), lease, requestedAt));
            }
            Waiter.Outcome outcome;
            try {
                outcome = waiter.await(prefix, request.shared(), ownKey, queued.revision(), queued.predecessor(),
                        queued.ahead(), lease, deadline, key);
            } catch (InterruptedException e) {
                leaveQueueOrLater(ownKey, queued.revision(), lease, key); // gone before we return, as promised
                throw e;
            } catch (RuntimeException e) {
                // etcd is failing us: do not spend another timeout on the way out; clean up in the background.
                if (lease.shared()) {
                    orphans.deleteLater(ownKey);
                } else {
                    leases.revokeQuietly(lease);
                }
                throw e;
            }
            switch (outcome) {
                case GRANTED -> {
                    return Optional.of(grant(request, ownKey, queued.revision(), lease, waiter.grantedRequestedAt()));
                }
                case TIMED_OUT -> {
                    leaveQueueOrLater(ownKey, queued.revision(), lease, key);
                    return Optional.empty();
                }
                case GONE -> {
                    // Our key vanished with its lease (or was deleted): queue again under a fresh one. A session
                    // we gave up on may still hold our old key on the server until it expires: take it out.
                    if (lease.shared()) {
                        orphans.deleteLater(ownKey);
                    } else {
                        leases.revokeQuietly(lease);
                    }
                    if (deadline - System.nanoTime() <= 0) {
                        return Optional.empty();
                    }
                }
            }
        }
    }

    /**
     * Renews one hold with {@code lease}: a keep-alive of its lease (and a check of its key)
     * when that lease was asked with the same TTL, else a move of its key to a lease of that
     * TTL ({@link LeaseMove}). Renewals of one hold are serialized, so a move never races
     * another renewal of the same hold.
     *
     * @return false if the hold is gone
     */
    /**
     * Leaves the hold to expire {@code linger} from now: its key moves to a lease of its own
     * with that TTL that nobody keeps alive (a renewed hold's session lease is kept alive for
     * as long as the backend is open).
     *
     * @return false if the hold is gone
     */
    public boolean linger(Grant grant, Duration linger) {
        HoldState state = grant.state();
        synchronized (state) {
            return moves.move(grant, linger, true);
        }
    }

    public boolean renew(Grant grant, Duration lease) {
        HoldState state = grant.state();
        synchronized (state) {
            if (state.lease().askedTtlSeconds() == LeaseKeeper.ttlSeconds(lease)) {
                return renewal.renewAll(List.of(grant)).isEmpty();
            }
            return moves.move(grant, lease);
        }
    }

    /**
     * Renews every hold with {@code lease}. Holds whose lease already has that TTL (the
     * common case: every renewed hold on the session of the default lease) are renewed
     * together, one keep-alive and one check per lease as before; the others are moved one
     * by one. A hold moved by a concurrent {@link #renew} while it was renewed together is
     * renewed again on its new lease, so what is reported is true of the lease it is on.
     */
    public Set<Grant> renewAll(Collection<Grant> grants, Duration lease) {
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
        for (int i = 0; i < together.size(); i++) {
            Grant grant = together.get(i);
            if (!gone.contains(grant) && ((HoldState) grant.state()).lease() != leaseOf.get(i)) {
                oneByOne.add(grant);
            }
        }
        RuntimeException failure = null;
        for (Grant grant : oneByOne) {
            try {
                if (!renew(grant, lease)) {
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
        return gone;
    }

    /**
     * The TTL etcd keeps the hold's key for, as of the last grant or renewal etcd confirmed:
     * the granted TTL of the lease the key is on (whole seconds, at least etcd's minimum TTL).
     * After a renewal that asked for {@code requested}, the key is on a lease asked with
     * {@code requested} rounded up, so this is never less than {@code requested}.
     */
    public Duration appliedLease(Grant grant) {
        return Duration.ofSeconds(((HoldState) grant.state()).lease().ttlSeconds());
    }

    public boolean release(Grant grant) {
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

    /** What etcd records about {@code key}: see {@link KeyInspection}. */
    public KeyState inspect(String key) {
        return inspection.inspect(key);
    }

    public void ping() {
        rpc.await(queue.ping(keys.pingKey()), "(ping)", "answer a ping");
    }

    private EtcdLease lease(LockRequest request) {
        return request.renewed() ? leases.session(request.lease(), request.key())
                : leases.perLock(request.lease(), request.key());
    }

    /** Our key for one round of queueing: a reader key for a shared request. */
    private ByteSequence ownKey(LockRequest request, ByteSequence prefix, int round) {
        return keys.keyOf(request, prefix, round);
    }

    /** Our key in the queue, on {@code lease}. */
    private record Queued(EtcdLease lease, long revision, ByteSequence predecessor, long ahead) {
    }

    /**
     * Gets a lease and puts our key on it. A session found gone on the way (expired,
     * revoked) is replaced and the put tried again; a fence that moved is read again.
     */
    private Queued enqueue(LockRequest request, ByteSequence prefix, ByteSequence ownKey) {
        ByteSequence value = KeySpace.bytes(request.owner());
        for (int attempt = 1; ; attempt++) {
            EtcdLease lease = lease(request);
            try {
                LockQueue.Enqueued queued = queue.enqueue(prefix, request.shared(), ownKey, value, lease,
                        request.key());
                if (queued != null) {
                    return new Queued(lease, queued.revision(), queued.predecessor(), queued.ahead());
                }
            } catch (LockQueue.LeaseGoneException e) {
                leases.lost(lease, e);
            } catch (LockBackendException e) {
                if (Rpc.isLeaseNotFound(e)) {
                    leases.lost(lease, e);
                } else {
                    // No answer: the put may still be applied, now or much later.
                    if (lease.shared()) {
                        orphans.poisonLater(lease, ownKey);
                    } else {
                        leases.revokeQuietly(lease);
                    }
                    throw e;
                }
            }
            if (!lease.shared()) {
                leases.revokeQuietly(lease);
            }
            if (attempt == 3) {
                throw new LockBackendException("etcd kept losing the lease for lock '" + request.key() + "' (backend "
                        + "'etcd') while queueing: it expired or was revoked three times in a row. Check for an operator "
                        + "revoking leases, or a cluster too slow for the lease TTL.", request.key(), Rpc.BACKEND, null);
            }
        }
    }

    /**
     * A grant whose local validity counts from {@code requestedAt}, or from earlier if the
     * lease was last confirmed so long ago that it could run out sooner.
     */
    static Grant grant(LockRequest request, ByteSequence ownKey, long revision, EtcdLease lease, long requestedAt) {
        long from = Math.min(requestedAt, lease.aliveUntilNanos() - request.lease().toNanos());
        Grant grant = new Grant(request.key(), request.owner(), revision, from,
                new HoldState(ownKey, revision, request.shared(), lease));
        lease.grants().add(grant);
        return grant;
    }

    /** Takes our key out of the queue now, so nothing is left when the caller returns. */
    private void leaveQueue(ByteSequence ownKey, long revision, EtcdLease lease, String key) {
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

    private void leaveQueueOrLater(ByteSequence ownKey, long revision, EtcdLease lease, String key) {
        try {
            leaveQueue(ownKey, revision, lease, key);
        } catch (RuntimeException e) {
            // already retried in the background by leaveQueue
        }
    }

    @Override
    public void close() {
        leases.close();
    }
}
