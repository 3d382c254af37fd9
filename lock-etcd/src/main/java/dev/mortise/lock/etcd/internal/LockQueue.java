package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.util.ArrayList;
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
 * create revision, so nothing here ever touches another owner's key. Thread-safe.
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
    record Enqueued(long revision, ByteSequence predecessor, long ahead) {
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
        ByteSequence fence = lease.fenceKey();
        Cmp absent = new Cmp(ownKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0));
        Cmp[] conditions = fence == null ? new Cmp[] {absent}
                : new Cmp[] {absent, new Cmp(fence, Cmp.Op.EQUAL, CmpTarget.modRevision(lease.fenceRevision()))};
        TxnResponse response = rpc.await(kv.txn()
                .If(conditions)
                .Then(blockers(prefix, shared, 0),
                        Op.put(ownKey, value, PutOption.builder().withLeaseId(lease.id()).build()))
                .Else(Op.get(fence == null ? ownKey : fence, GetOption.DEFAULT))
                .commit(), key, "queue for the lock");
        if (response.isSucceeded()) {
            GetResponse before = response.getGetResponses().get(0);
            return new Enqueued(response.getHeader().getRevision(), firstKey(before), before.getCount());
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

    /** One part of a batch: our key under the lock's {@code prefix}, to be put on {@code lease}. */
    record Part(ByteSequence prefix, boolean shared, ByteSequence ownKey, ByteSequence value, EtcdLease lease) {
    }

    /**
     * The batch's transaction went through at {@code revision} (every part's key was created
     * there: it is each part's fencing token); {@code blocked.get(i)} says whether a key created
     * before part {@code i}'s keeps it waiting.
     */
    record EnqueuedAll(long revision, List<Boolean> blocked) {
        boolean allFree() {
            return !blocked.contains(true);
        }
    }

    /**
     * {@link #enqueue} for several locks in one transaction: for each part, the read of the
     * newest key that keeps it waiting, then the put of its key, so etcd applies all the puts
     * or none at one revision. The compares are each key's absence and, on a session lease,
     * the fence of every session the parts are on, as in {@link #enqueue}.
     *
     * <p>A refusal cannot be decided inside the transaction: etcd compares key ranges
     * ({@code Compare.range_end}, since 3.3), but jetcd's {@code Cmp} has no range end, so no
     * compare can say "no key under this prefix". The caller reads {@link EnqueuedAll#blocked}
     * and takes every key out again if any part must wait.
     *
     * @return null if a fence moved (another attempt's outcome was unknown): try again
     * @throws LeaseGoneException if a session's fence key is gone with its lease
     * @throws IllegalStateException if one of our keys already existed (owners must be unique per hold)
     */
    EnqueuedAll enqueueAll(List<Part> parts, String key) {
        List<EtcdLease> fenced = parts.stream().map(Part::lease).filter(l -> l.fenceKey() != null).distinct().toList();
        List<Cmp> conditions = new ArrayList<>(parts.size() + fenced.size());
        List<Op> then = new ArrayList<>(parts.size() * 2);
        for (Part part : parts) {
            conditions.add(new Cmp(part.ownKey(), Cmp.Op.EQUAL, CmpTarget.createRevision(0)));
            then.add(blockers(part.prefix(), part.shared(), 0));
            then.add(Op.put(part.ownKey(), part.value(), PutOption.builder().withLeaseId(part.lease().id()).build()));
        }
        long[] fenceRevisions = new long[fenced.size()];
        List<Op> otherwise = new ArrayList<>(fenced.size());
        for (int i = 0; i < fenced.size(); i++) {
            EtcdLease lease = fenced.get(i);
            fenceRevisions[i] = lease.fenceRevision();
            conditions.add(new Cmp(lease.fenceKey(), Cmp.Op.EQUAL, CmpTarget.modRevision(fenceRevisions[i])));
            otherwise.add(Op.get(lease.fenceKey(), GetOption.DEFAULT));
        }
        TxnResponse response = rpc.await(kv.txn()
                .If(conditions.toArray(Cmp[]::new))
                .Then(then.toArray(Op[]::new))
                .Else(otherwise.toArray(Op[]::new))
                .commit(), key, "queue for " + parts.size() + " locks in one transaction (acquireAll)");
        if (response.isSucceeded()) {
            List<Boolean> blocked = response.getGetResponses().stream().map(r -> firstKey(r) != null).toList();
            return new EnqueuedAll(response.getHeader().getRevision(), blocked);
        }
        boolean fenceMoved = false;
        for (int i = 0; i < fenced.size(); i++) {
            List<KeyValue> fenceNow = response.getGetResponses().get(i).getKvs();
            if (fenceNow.isEmpty()) {
                throw new LeaseGoneException(fenced.get(i));
            }
            long now = fenceNow.get(0).getModRevision();
            fenceMoved |= now != fenceRevisions[i];
            fenced.get(i).fence(fenced.get(i).fenceKey(), now);
        }
        if (!fenceMoved) {
            throw new IllegalStateException("one of the etcd keys " + parts.stream().map(Part::ownKey).toList()
                    + " already exists: owners must be unique per hold");
        }
        return null;
    }

    /** Deletes our keys in one transaction (plain deletes, as in {@link #delete}). */
    void deleteAll(List<ByteSequence> ownKeys, String key) {
        Op[] deletes = ownKeys.stream().map(k -> Op.delete(k, DeleteOption.DEFAULT)).toArray(Op[]::new);
        rpc.await(kv.txn().Then(deletes).commit(), key, "delete our lock keys of one acquireAll");
    }

    /** The session lease behind a fence key is gone (expired or revoked). */
    static final class LeaseGoneException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LeaseGoneException(EtcdLease lease) {
            super("etcd lease " + Long.toHexString(lease.id()) + " is gone (its fence key was removed)", null, false,
                    false);
        }
    }

    /** What a waiter learns when it looks again. */
    sealed interface Check permits Gone, Owner, Behind {
    }

    /** Our key is gone (its lease expired or it was deleted): we are not in the queue any more. */
    record Gone() implements Check {
    }

    /** No key before ours: we hold the lock. */
    record Owner() implements Check {
    }

    /** {@code predecessor} is still before us, as of {@code revision}. */
    record Behind(ByteSequence predecessor, long revision) implements Check {
    }

    /**
     * Reads, only if our key still has {@code revision}, the newest key created before it
     * that keeps us waiting (a writer key, for a {@code shared} waiter).
     */
    CompletableFuture<TxnResponse> recheck(ByteSequence prefix, boolean shared, ByteSequence ownKey, long revision) {
        return rpc.retrying(() -> kv.txn()
                .If(new Cmp(ownKey, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                .Then(blockers(prefix, shared, revision - 1))
                .commit(), rpc.deadline());
    }

    static Check check(TxnResponse response) {
        if (!response.isSucceeded()) {
            return new Gone();
        }
        ByteSequence predecessor = firstKey(response.getGetResponses().get(0));
        return predecessor == null ? new Owner() : new Behind(predecessor, response.getHeader().getRevision());
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

    /**
     * The newest key that keeps a request of this mode waiting, created up to
     * {@code maxCreateRevision} (0: any): for a writer any key under the prefix (the read
     * the exclusive path has always sent), for a reader a key in the writers' range.
     */
    private static Op blockers(ByteSequence prefix, boolean shared, long maxCreateRevision) {
        if (!shared) {
            return Op.get(prefix, newest(GetOption.builder().isPrefix(true), maxCreateRevision));
        }
        return Op.get(KeySpace.writersFrom(prefix),
                newest(GetOption.builder().withRange(KeySpace.prefixEnd(prefix)), maxCreateRevision));
    }

    /** Keys of {@code option}'s range created up to {@code maxCreateRevision} (0: any), newest first, at most one. */
    private static GetOption newest(GetOption.Builder option, long maxCreateRevision) {
        option.withKeysOnly(true).withLimit(1)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.DESCEND);
        if (maxCreateRevision > 0) {
            option.withMaxCreateRevision(maxCreateRevision);
        }
        return option.build();
    }

    private static ByteSequence firstKey(GetResponse response) {
        List<KeyValue> kvs = response.getKvs();
        return kvs.isEmpty() ? null : kvs.get(0).getKey();
    }
}
