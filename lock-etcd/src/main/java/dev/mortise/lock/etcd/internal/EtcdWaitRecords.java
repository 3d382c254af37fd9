package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.WaitRecords;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The wait records of deadlock detection in etcd ({@link WaitRecords}): under each holder id one
 * key, {@code <namespace>#wait/<holder id>/<nonce>}, whose value is the text, on an etcd lease of
 * the record's TTL ({@link WaitLeases}: one per nonce, never kept alive in the background), so etcd
 * itself deletes the key when the lease runs out. {@code #} never appears in an encoded lock key,
 * so no lock's prefix reaches these keys.
 *
 * <ul>
 *   <li>{@link #publish}: per holder id, in one transaction, deletes whatever else is under the
 *       id's prefix (an older nonce's record) and puts the key; a republish of the nonce keeps its
 *       lease alive in the same round trip. One round trip (two on a nonce's first publish: the
 *       lease grant first).</li>
 *   <li>{@link #remove}: the nonce is in the key's name, so deleting that exact key deletes the
 *       record only while it bears the nonce; the deletes of every id go in one transaction, with
 *       the revoke of the nonce's lease when no id is left on it. One round trip.</li>
 *   <li>{@link #read}: one transaction of one range read per holder id. One round trip.</li>
 * </ul>
 * Transactions hold at most 128 operations (etcd's default {@code --max-txn-ops}); more ids are
 * split into several transactions sent together. Thread-safe; every call ends within the operation
 * timeout or fails with {@link dev.mortise.lock.LockBackendException} naming the backend.
 */
public final class EtcdWaitRecords implements WaitRecords, AutoCloseable {

    /** What failures name in place of a lock key. */
    static final String WHAT = "(wait records)";
    private static final int MAX_TXN_OPS = 128;
    private static final Pattern HOLDER_ID = Pattern.compile("[0-9a-f]{16}");
    private static final Pattern NONCE = Pattern.compile("[0-9a-z]{1,32}");
    private static final ByteSequence NUL = ByteSequence.from(new byte[] {0});

    private final KV kv;
    private final KeySpace keys;
    private final Rpc rpc;
    private final WaitLeases leases;

    EtcdWaitRecords(KV kv, KeySpace keys, Rpc rpc, WaitLeases leases) {
        this.kv = kv;
        this.keys = keys;
        this.rpc = rpc;
        this.leases = leases;
    }

    @Override
    public Duration publish(Collection<String> holderIds, String nonce, String text, Duration ttl) {
        List<String> ids = checked(holderIds);
        checkNonce(nonce);
        if (ids.isEmpty()) {
            return Duration.ofSeconds(LeaseKeeper.ttlSeconds(ttl)); // nothing to keep: no lease is granted
        }
        long deadline = rpc.deadline();
        ByteSequence value = ByteSequence.from(text, StandardCharsets.UTF_8);
        return leases.publish(nonce, ttl, ids, deadline, leaseId -> inTransactions(ids, 3, deadline, id -> {
            ByteSequence prefix = keys.waitRecordPrefix(id);
            ByteSequence own = keys.waitRecordKey(id, nonce);
            // The put may not lie inside a delete range of the same transaction: delete around it.
            return List.of(Op.delete(prefix, DeleteOption.builder().withRange(own).build()),
                    Op.delete(own.concat(NUL), DeleteOption.builder().withRange(KeySpace.prefixEnd(prefix)).build()),
                    Op.put(own, value, PutOption.builder().withLeaseId(leaseId).build()));
        }));
    }

    @Override
    public void remove(Collection<String> holderIds, String nonce) {
        List<String> ids = checked(holderIds);
        checkNonce(nonce);
        if (ids.isEmpty()) {
            return;
        }
        long deadline = rpc.deadline();
        CompletableFuture<Void> revoke = leases.forget(nonce, ids, deadline);
        CompletableFuture<?> deletes = inTransactions(ids, 1, deadline,
                id -> List.of(Op.delete(keys.waitRecordKey(id, nonce), DeleteOption.DEFAULT)));
        rpc.await(CompletableFuture.allOf(revoke, deletes), deadline, WHAT, "remove " + ids.size() + " wait records");
    }

    @Override
    public Map<String, String> read(Collection<String> holderIds) {
        List<String> ids = checked(holderIds);
        Map<String, String> found = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            return found;
        }
        long deadline = rpc.deadline();
        List<List<String>> chunks = chunks(ids, MAX_TXN_OPS);
        List<CompletableFuture<TxnResponse>> pending = new ArrayList<>(chunks.size());
        for (List<String> chunk : chunks) {
            pending.add(send(chunk, deadline, id -> {
                ByteSequence prefix = keys.waitRecordPrefix(id);
                return List.of(Op.get(prefix, GetOption.builder().withRange(KeySpace.prefixEnd(prefix)).build()));
            }));
        }
        rpc.await(CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)), deadline, WHAT,
                "read " + ids.size() + " wait records");
        for (int c = 0; c < chunks.size(); c++) {
            List<GetResponse> gets = pending.get(c).join().getGetResponses();
            for (int i = 0; i < gets.size(); i++) {
                KeyValue newest = null;
                for (KeyValue kv : gets.get(i).getKvs()) {
                    newest = newest == null || kv.getModRevision() > newest.getModRevision() ? kv : newest;
                }
                if (newest != null) {
                    found.put(chunks.get(c).get(i), newest.getValue().toString(StandardCharsets.UTF_8));
                }
            }
        }
        return found;
    }

    /** Revokes the leases of records still published: the backend's waits are over. */
    @Override
    public void close() {
        leases.close();
    }

    /** The operations for {@code ids} ({@code opsPerId} each), in transactions sent together; one future for all. */
    private CompletableFuture<Void> inTransactions(List<String> ids, int opsPerId, long deadline,
                                                   Function<String, List<Op>> ops) {
        List<CompletableFuture<TxnResponse>> pending = new ArrayList<>();
        for (List<String> chunk : chunks(ids, MAX_TXN_OPS / opsPerId)) {
            pending.add(send(chunk, deadline, ops));
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
    }

    /** One unconditional transaction; every one here is idempotent, so it is retried while etcd has no leader. */
    private CompletableFuture<TxnResponse> send(List<String> ids, long deadline, Function<String, List<Op>> ops) {
        List<Op> all = new ArrayList<>();
        for (String id : ids) {
            all.addAll(ops.apply(id));
        }
        Op[] then = all.toArray(Op[]::new);
        return rpc.retrying(() -> kv.txn().Then(then).commit(), deadline);
    }

    private static List<List<String>> chunks(List<String> ids, int size) {
        List<List<String>> chunks = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += size) {
            chunks.add(ids.subList(from, Math.min(ids.size(), from + size)));
        }
        return chunks;
    }

    /** The distinct holder ids, checked: they become part of key names. */
    private static List<String> checked(Collection<String> holderIds) {
        List<String> ids = List.copyOf(new LinkedHashSet<>(holderIds));
        for (String id : ids) {
            if (!HOLDER_ID.matcher(id).matches()) {
                throw new IllegalArgumentException("A wait record's holder id is 16 lowercase hex digits, was '" + id
                        + "' (backend 'etcd')");
            }
        }
        return ids;
    }

    private static void checkNonce(String nonce) {
        if (!NONCE.matcher(nonce).matches()) {
            throw new IllegalArgumentException("A wait record's nonce is 1 to 32 characters of [0-9a-z], was '" + nonce
                    + "' (backend 'etcd')");
        }
    }
}
