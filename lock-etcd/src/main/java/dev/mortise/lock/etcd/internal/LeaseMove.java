package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Grant;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Renews a hold with a lease other than its etcd lease's TTL by moving its key to a lease
 * with the asked TTL. An etcd lease keeps the TTL it was granted with: a keep-alive renews
 * it for that TTL, whatever the caller hoped for, so {@code extend(30 s)} of a hold on a 2 s
 * lease would otherwise leave the server expiring it after 2 s while the client believes
 * 30 s (issue 14, finding 2).
 *
 * <p>The move is one transaction, <em>if our key still has its create revision, put it
 * again (same value) attached to the new lease</em>. A put on an existing key keeps its
 * create revision, so the fencing token and the key's place in the queue do not change,
 * and waiters (whose watches ignore puts) are not woken. Where the key goes:
 * <ul>
 *   <li>a hold on a lease of its own (an explicit lease) gets a new lease of its own with
 *       the asked TTL, granted before the move, and the old lease is revoked after it;</li>
 *   <li>a hold on a session lease (a renewed hold) goes to the session lease of the asked
 *       TTL, exactly as if it had been acquired with that lease; a keep-alive sent with the
 *       move proves that session alive for its TTL from before the move.</li>
 * </ul>
 * Either way the key's lease is alive, from a moment after the caller's start, for at
 * least the asked TTL, which is what the renewal then answers.
 *
 * <p>A move whose answer never came leaves the key on either lease: the old one is kept
 * (never revoked while it may still carry our key), a new per-lock lease is remembered as
 * the hold's stray and revoked at release, and the caller gets the failure ("the lease is
 * unchanged"): the server may keep the key longer than the client believes, never shorter.
 * Callers serialize moves of one hold on its {@link HoldState}. Thread-safe.
 */
final class LeaseMove {

    private final KV kv;
    private final LeaseKeeper leases;
    private final Rpc rpc;

    LeaseMove(KV kv, LeaseKeeper leases, Rpc rpc) {
        this.kv = kv;
        this.leases = leases;
        this.rpc = rpc;
    }

    /**
     * Leaves the hold to expire {@code linger} from now: its key moves to a lease of its own
     * with that TTL that nobody keeps alive (a renewed hold's session lease is kept alive for
     * as long as the backend is open).
     *
     * @return false if the hold is gone
     */
    boolean linger(Grant grant, Duration linger) {
        HoldState state = grant.state();
        state.moving().lock();
        try {
            return move(grant, linger, true);
        } finally {
            state.moving().unlock();
        }
    }

    /**
     * Moves {@code grant}'s key to a lease of {@code lease}'s TTL (rounded up to seconds).
     * The caller holds {@code grant.state()}'s {@link HoldState#moving()} lock.
     *
     * @return false if the hold is gone (our key does not exist with its create revision)
     * @throws LockBackendException if etcd could not be asked, or did not answer
     */
    boolean move(Grant grant, Duration lease) {
        return move(grant, lease, false);
    }

    /**
     * As {@link #move(Grant, Duration)}; with {@code ownLease} the key always goes to a lease of
     * its own, never a kept-alive session, so it ends after {@code lease} ({@code linger}).
     */
    boolean move(Grant grant, Duration lease, boolean ownLease) {
        HoldState state = grant.state();
        EtcdLease from = state.lease();
        String key = grant.key();
        for (int attempt = 1; ; attempt++) {
            EtcdLease to = from.shared() && !ownLease ? leases.session(lease, key) : leases.perLock(lease, key);
            long sentAt = System.nanoTime();
            CompletableFuture<LeaseKeepAliveResponse> alive = to.shared() ? leases.keepAliveAsync(to) : null;
            TxnResponse moved;
            try {
                moved = putOn(to, grant, state, key);
            } catch (LockBackendException e) {
                if (EtcdErrors.isLeaseNotFound(e)) {
                    // The target session expired or was revoked before the put: nothing moved, try a fresh one.
                    leases.lost(to, e);
                    if (attempt < 3) {
                        continue;
                    }
                    throw new LockBackendException("etcd kept losing the lease that lock '" + key + "' (backend "
                            + "'etcd') was being moved to for a lease of " + lease + ": it expired or was revoked "
                            + "three times in a row. Check for an operator revoking leases, or a cluster too slow "
                            + "for the lease TTL.", key, EtcdErrors.BACKEND, e);
                }
                if (!to.shared()) {
                    state.stray(to); // our key may be on it: revoked at release, never before
                }
                throw e;
            }
            if (!moved.isSucceeded() && state.value() != null) {
                List<KeyValue> now = moved.getGetResponses().get(0).getKvs();
                if (!now.isEmpty() && now.get(0).getCreateRevision() == state.revision()) {
                    // Still ours, rewritten by a setPermits: move it with its new value.
                    state.value(now.get(0).getValue());
                    if (!to.shared()) {
                        leases.revokeQuietly(to);
                    }
                    continue;
                }
            }
            if (!moved.isSucceeded()) {
                // Our key is gone (expired, revoked, deleted): nothing was moved.
                if (!to.shared()) {
                    leases.revokeQuietly(to);
                }
                from.grants().remove(grant);
                return false;
            }
            return movedTo(to, from, grant, state, sentAt, alive, key);
        }
    }

    /** The move's transaction: if our key still has its create revision (and value), put it again on {@code to}. */
    private TxnResponse putOn(EtcdLease to, Grant grant, HoldState state, String key) {
        // A permit key's value carries the semaphore's stored count, which setPermits may rewrite: put
        // again only the value we know, if it is still the key's (else read it and move again).
        ByteSequence permitValue = state.value();
        Cmp ours = new Cmp(state.ownKey(), Cmp.Op.EQUAL, CmpTarget.createRevision(state.revision()));
        Cmp[] conditions = permitValue == null ? new Cmp[] {ours}
                : new Cmp[] {ours, new Cmp(state.ownKey(), Cmp.Op.EQUAL, CmpTarget.value(permitValue))};
        return rpc.await(kv.txn()
                .If(conditions)
                .Then(Op.put(state.ownKey(), permitValue == null ? KeySpace.bytes(grant.owner()) : permitValue,
                        PutOption.builder().withLeaseId(to.id()).build()))
                .Else(Op.get(state.ownKey(), GetOption.DEFAULT))
                .commit(), key, "move our key to a lease of " + to.ttlSeconds() + " s");
    }

    /**
     * After a move etcd applied: the hold is on {@code to} now, and a lease of its own it left
     * is revoked. A session target must be proved alive by the keep-alive sent with the move.
     *
     * @return false if the session died with our key on it, right after the move
     */
    private boolean movedTo(EtcdLease to, EtcdLease from, Grant grant, HoldState state, long sentAt,
                            CompletableFuture<LeaseKeepAliveResponse> alive, String key) {
        from.grants().remove(grant);
        state.moved(to);
        to.grants().add(grant);
        if (!from.shared()) {
            leases.revokeQuietly(from); // our key is not on it any more
        }
        if (alive != null) {
            boolean live;
            try {
                live = leases.settle(to, sentAt, alive, rpc.deadline(), key);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw EtcdErrors.failure(e, key, "keep lease " + Long.toHexString(to.id()) + " alive");
            }
            if (!live) {
                // The session died with our key on it, right after the move (settle reported it lost).
                to.grants().remove(grant);
                return false;
            }
        }
        return true;
    }
}
