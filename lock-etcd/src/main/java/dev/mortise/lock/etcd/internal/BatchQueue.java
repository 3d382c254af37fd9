package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.util.ArrayList;
import java.util.List;

/**
 * The transactions of {@link BatchAcquire} on several locks' queues: every part queued in one
 * transaction, exactly as {@link LockQueue#enqueue} queues one, and every key taken out again
 * in one. Thread-safe.
 */
final class BatchQueue {

    private final KV kv;
    private final Rpc rpc;

    BatchQueue(KV kv, Rpc rpc) {
        this.kv = kv;
        this.rpc = rpc;
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
     * {@link LockQueue#enqueue} for several locks in one transaction: for each part, the read of the
     * newest key that keeps it waiting, then the put of its key, so etcd applies all the puts
     * or none at one revision. The compares are each key's absence and, on a session lease,
     * the fence of every session the parts are on, as in {@link LockQueue#enqueue}.
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
            then.add(QueueRanges.blockers(part.prefix(), part.shared(), 0));
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
            List<Boolean> blocked = response.getGetResponses().stream().map(r -> QueueRanges.firstKey(r) != null).toList();
            return new EnqueuedAll(response.getHeader().getRevision(), blocked);
        }
        boolean fenceMoved = false;
        for (int i = 0; i < fenced.size(); i++) {
            List<KeyValue> fenceNow = response.getGetResponses().get(i).getKvs();
            if (fenceNow.isEmpty()) {
                throw new LockQueue.LeaseGoneException(fenced.get(i));
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

    /** Deletes our keys in one transaction (plain deletes, as in {@link LockQueue#delete}). */
    void deleteAll(List<ByteSequence> ownKeys, String key) {
        Op[] deletes = ownKeys.stream().map(k -> Op.delete(k, DeleteOption.DEFAULT)).toArray(Op[]::new);
        rpc.await(kv.txn().Then(deletes).commit(), key, "delete our lock keys of one acquireAll");
    }
}
