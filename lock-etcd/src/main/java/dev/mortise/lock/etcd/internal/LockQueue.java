package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The queue of one lock in etcd, as transactions. Every key under a lock's prefix is one
 * hold or waiter, exclusive (a writer) or shared (a reader, see {@link KeySpace#readerKey}).
 * A writer holds the lock when no key of either mode has a lower create revision, and
 * watches only the key created just before its own; a reader holds it when no <em>writer</em>
 * key has a lower create revision, and watches only the newest such writer key. So a
 * waiting writer keeps every reader that queues after it out (no writer starvation), and
 * the queue is granted in revision order. Every write is checked against our own key's
 * create revision, so nothing here ever touches another owner's key. Permit keys
 * ({@link KeySpace#permitKey}) lie in the writers' range, so readers and writers wait for them
 * as for a writer; a permit request reads the whole queue and holds by
 * {@link PermitAdmission}'s rule. Thread-safe.
 */
final class LockQueue {

    private final KV kv;
    private final Rpc rpc;

    LockQueue(KV kv, Rpc rpc) {
        this.kv = kv;
        this.rpc = rpc;
    }

    /**
     * Our key was put at {@code revision}; {@code predecessor} is the key that keeps us waiting
     * (for a writer the key created just before ours, for a reader the newest writer key
     * created before ours), or null; {@code ahead} is how many such keys were created before
     * ours (1: nobody else keeps us waiting, so when the predecessor goes, we hold the lock).
     */
    record Enqueued(long revision, ByteSequence predecessor, long ahead, List<KeyValue> before) {
    }

    /**
     * Puts our key on {@code lease} and, in the same transaction, reads the newest key
     * before it that keeps us waiting (any key for a writer; a writer key for a
     * {@code shared} request): the predecessor to watch, or none, in which case we hold the
     * lock. The read runs before the put, so its count is exactly the number of keys ahead
     * of ours.
     *
     * <p>On a session lease the put also requires the session's fence key to be unchanged.
     * A put whose answer never came may still be applied later (a frozen member thawing);
     * {@link OrphanCleaner#poisonLater} moves the fence and deletes the key in one transaction, so such
     * a put either lands before it and is deleted, or after it and fails — it can never
     * leave a key on a live session that would block the lock for as long as we live.
     *
     * @return null if the fence moved (another attempt's outcome was unknown): try again
     * @throws LeaseGoneException if the session's fence key is gone with its lease
     */
    Enqueued enqueue(ByteSequence prefix, boolean shared, ByteSequence ownKey, ByteSequence value, EtcdLease lease,
                     String key) {
        return enqueue(QueueRanges.blockers(prefix, shared, 0), ownKey, value, lease, key);
    }

    /**
     * {@link #enqueue} for a permit request: the read before the put is every key under the
     * prefix with its value, oldest first ({@link Enqueued#before}), from which
     * {@link PermitAdmission} decides; {@link Enqueued#predecessor} is then meaningless.
     */
    Enqueued enqueuePermits(ByteSequence prefix, ByteSequence ownKey, ByteSequence value, EtcdLease lease, String key) {
        return enqueue(Op.get(prefix, QueueRanges.queueOf(prefix, 0)), ownKey, value, lease, key);
    }

    /**
     * A permit waiter's look: only if our key still has {@code revision}, every key under the
     * prefix created up to ours (ours included, last), with values, oldest first.
     */
    CompletableFuture<TxnResponse> recheckPermits(ByteSequence prefix, ByteSequence ownKey, long revision) {
        return rpc.retrying(() -> kv.txn()
                .If(new Cmp(ownKey, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                .Then(Op.get(prefix, QueueRanges.queueOf(prefix, revision)))
                .commit(), rpc.deadline());
    }

    private Enqueued enqueue(Op read, ByteSequence ownKey, ByteSequence value, EtcdLease lease, String key) {
        ByteSequence fence = lease.fenceKey();
        Cmp absent = new Cmp(ownKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0));
        Cmp[] conditions = fence == null ? new Cmp[] {absent}
                : new Cmp[] {absent, new Cmp(fence, Cmp.Op.EQUAL, CmpTarget.modRevision(lease.fenceRevision()))};
        TxnResponse response = rpc.await(kv.txn()
                .If(conditions)
                .Then(read, Op.put(ownKey, value, PutOption.builder().withLeaseId(lease.id()).build()))
                .Else(Op.get(fence == null ? ownKey : fence, GetOption.DEFAULT))
                .commit(), key, "queue for the lock");
        if (response.isSucceeded()) {
            GetResponse before = response.getGetResponses().get(0);
            return new Enqueued(response.getHeader().getRevision(), QueueRanges.firstKey(before), before.getCount(),
                    before.getKvs());
        }
        if (fence == null) {
            throw new IllegalStateException("etcd key " + ownKey + " already exists: owners must be unique per hold");
        }
        List<KeyValue> fenceNow = response.getGetResponses().get(0).getKvs();
        if (fenceNow.isEmpty()) {
            throw new LeaseGoneException(lease);
        }
        lease.fence(fence, fenceNow.get(0).getModRevision());
        return null;
    }

    /** The session lease behind a fence key is gone (expired or revoked). */
    static final class LeaseGoneException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LeaseGoneException(EtcdLease lease) {
            super("etcd lease " + Long.toHexString(lease.id()) + " is gone (its fence key was removed)", null, false,
                    false);
        }
    }

    /**
     * Reads, only if our key still has {@code revision}, the newest key created before it
     * that keeps us waiting (a writer key, for a {@code shared} waiter).
     */
    CompletableFuture<TxnResponse> recheck(ByteSequence prefix, boolean shared, ByteSequence ownKey, long revision) {
        return rpc.retrying(() -> kv.txn()
                .If(new Cmp(ownKey, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                .Then(QueueRanges.blockers(prefix, shared, revision - 1))
                .commit(), rpc.deadline());
    }

    /**
     * Deletes our key. A plain delete, not a transaction comparing its create revision: the
     * key's name is ours alone (owner ids are unique per hold, rounds per queueing, and we
     * never put a name twice), so no other owner's key and no other hold of ours can carry
     * it, and etcd applies a delete without the read view a transaction's compare needs.
     *
     * @return whether it was there
     */
    boolean delete(ByteSequence ownKey, String key) {
        return rpc.await(kv.delete(ownKey), key, "delete our lock key").getDeleted() > 0;
    }

    /** Reads whether each of {@code ownKeys} exists, in one transaction. */
    CompletableFuture<TxnResponse> present(List<ByteSequence> ownKeys) {
        Op[] gets = ownKeys.stream().map(k -> Op.get(k, GetOption.builder().withKeysOnly(true).build()))
                .toArray(Op[]::new);
        return rpc.retrying(() -> kv.txn().Then(gets).commit(), rpc.deadline());
    }

    /** Linearizable read of one key that never exists: a round trip through the leader. */
    CompletableFuture<GetResponse> ping(ByteSequence probe) {
        return rpc.retrying(() -> kv.get(probe, GetOption.builder().withCountOnly(true).build()), rpc.deadline());
    }
}
