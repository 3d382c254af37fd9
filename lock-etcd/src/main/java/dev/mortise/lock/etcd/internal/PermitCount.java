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

import java.util.ArrayList;
import java.util.List;

/**
 * Changes a semaphore's stored permit count ({@code LockBackend.setPermits}). The count lives in
 * the value of every permit key of the lock ({@link PermitValue}), so it is rewritten in all of
 * them: one read of the permit keys, then one transaction that puts each key that carries
 * another count again with the new one, on the lease it is on, if it was not changed since the
 * read (a put keeps the create revision: tokens and queue order do not change). The transaction
 * also reads the permit keys created after the read: a request that queued in between under the
 * old count is rewritten in another round. With no permit key, nothing is stored and nothing is
 * written. A waiter sees the put on its own key and looks again if it now fits. Thread-safe.
 */
final class PermitCount {

    /** Puts per transaction: well under etcd's default {@code --max-txn-ops} of 128. */
    private static final int CHUNK = 100;
    private static final int ROUNDS = 10;

    private final KV kv;
    private final Rpc rpc;

    PermitCount(KV kv, Rpc rpc) {
        this.kv = kv;
        this.rpc = rpc;
    }

    void set(ByteSequence prefix, int limit, String key) {
        ByteSequence from = KeySpace.permitsFrom(prefix);
        ByteSequence end = KeySpace.permitsEnd(prefix);
        GetResponse read = rpc.await(kv.get(from, GetOption.builder().withRange(end).build()), key,
                "read the semaphore's permit keys");
        for (int round = 1; round <= ROUNDS; round++) {
            List<KeyValue> stale = new ArrayList<>();
            for (KeyValue held : read.getKvs()) {
                if (PermitValue.parse(held.getValue()).limit() != limit) {
                    stale.add(held);
                }
            }
            if (stale.isEmpty()) {
                return;
            }
            long readRevision = read.getHeader().getRevision();
            boolean allWritten = true;
            for (int at = 0; at < stale.size(); at += CHUNK) {
                allWritten &= rewrite(stale.subList(at, Math.min(stale.size(), at + CHUNK)), limit, key);
            }
            if (allWritten) {
                // Only keys created after the read can still carry the old count.
                read = rpc.await(kv.get(from, GetOption.builder().withRange(end)
                        .withMinCreateRevision(readRevision + 1).build()), key, "read the semaphore's new permit keys");
            } else {
                read = rpc.await(kv.get(from, GetOption.builder().withRange(end).build()), key,
                        "read the semaphore's permit keys");
            }
        }
        throw new dev.mortise.lock.LockBackendException("the permit count of semaphore key '" + key + "' (backend "
                + "'etcd') could not be rewritten in " + ROUNDS + " rounds: its permit keys kept changing under the "
                + "rewrite. Try again when the semaphore is less busy.", key, EtcdErrors.BACKEND, null);
    }

    /** @return false if a key changed since it was read (moved, released): read again */
    private boolean rewrite(List<KeyValue> stale, int limit, String key) {
        Cmp[] unchanged = new Cmp[stale.size()];
        Op[] puts = new Op[stale.size()];
        for (int i = 0; i < stale.size(); i++) {
            KeyValue held = stale.get(i);
            unchanged[i] = new Cmp(held.getKey(), Cmp.Op.EQUAL, CmpTarget.modRevision(held.getModRevision()));
            puts[i] = Op.put(held.getKey(), PermitValue.parse(held.getValue()).withLimit(limit).bytes(),
                    PutOption.builder().withLeaseId(held.getLease()).build());
        }
        try {
            TxnResponse response = rpc.await(kv.txn().If(unchanged).Then(puts).commit(), key,
                    "rewrite the semaphore's permit count");
            return response.isSucceeded();
        } catch (dev.mortise.lock.LockBackendException e) {
            if (EtcdErrors.isLeaseNotFound(e)) {
                return false; // a key's lease ended between the read and the put: its key is gone, read again
            }
            throw e;
        }
    }
}
