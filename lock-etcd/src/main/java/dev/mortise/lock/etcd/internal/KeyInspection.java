package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.KeyState;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.LeaseOption;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Reads what etcd records about one lock, for {@link dev.mortise.lock.spi.LockBackend#inspect}:
 * one linearizable range read of every key under the lock's prefix, oldest create revision
 * first, then one {@code LeaseTimeToLive} per distinct lease among the holders' keys (sent
 * together). Holders follow the queue's own rules ({@link QueueHolders}); every other key is a
 * waiter. Read-only: no key is put or deleted, no lease is kept alive or revoked, no watch is
 * woken. Thread-safe.
 */
final class KeyInspection {

    private final KV kv;
    private final Lease leases;
    private final KeySpace keys;
    private final Rpc rpc;

    KeyInspection(KV kv, Lease leases, KeySpace keys, Rpc rpc) {
        this.kv = kv;
        this.leases = leases;
        this.keys = keys;
        this.rpc = rpc;
    }

    KeyState inspect(String key) {
        ByteSequence prefix = keys.prefix(key);
        long deadline = rpc.deadline();
        for (int attempt = 1; ; attempt++) {
            KeyState state = readOnce(prefix, key, deadline, attempt == 3);
            if (state != null) {
                return state;
            }
        }
    }

    /**
     * One range read and the TTLs of the holders' leases.
     *
     * @param last whether to answer even if a holder's lease ran out between the two reads
     * @return null if it did (TTL -1: etcd no longer knows the lease, its keys are gone with it),
     *         so the queue read is stale: read again
     */
    private KeyState readOnce(ByteSequence prefix, String key, long deadline, boolean last) {
        GetResponse range = rpc.await(rpc.retrying(() -> kv.get(prefix, QueueRanges.queueOf(prefix, 0)), deadline),
                deadline, key, "read the lock's queue");
        List<KeyValue> queued = range.getKvs();
        int readerMark = prefix.size();
        List<KeyValue> holders = QueueHolders.holders(queued, readerMark);
        if (holders.isEmpty()) {
            return KeyState.free(OptionalInt.of(queued.size()));
        }
        Map<Long, CompletableFuture<LeaseTimeToLiveResponse>> asked = new LinkedHashMap<>();
        for (KeyValue holder : holders) {
            asked.computeIfAbsent(holder.getLease(), id -> rpc.retrying(
                    () -> leases.timeToLive(id, LeaseOption.DEFAULT), deadline));
        }
        Map<Long, Long> ttlOf = new LinkedHashMap<>();
        for (Map.Entry<Long, CompletableFuture<LeaseTimeToLiveResponse>> entry : asked.entrySet()) {
            ttlOf.put(entry.getKey(), rpc.await(entry.getValue(), deadline, key,
                    "read the TTL of lease " + Long.toHexString(entry.getKey())).getTTL());
        }
        List<KeyState.Holder> reported = new ArrayList<>(holders.size());
        for (KeyValue holder : holders) {
            long ttl = ttlOf.get(holder.getLease());
            if (ttl < 0) {
                if (!last) {
                    return null;
                }
                continue; // gone with its lease: an expired hold is not reported
            }
            // etcd answers whole seconds, rounded down: the hold lasts at least this long (under a second: 0).
            reported.add(new KeyState.Holder(QueueHolders.ownerOf(holder, readerMark),
                    OptionalLong.of(holder.getCreateRevision()), Optional.of(Duration.ofSeconds(ttl))));
        }
        int waiters = queued.size() - holders.size();
        if (reported.isEmpty()) {
            return KeyState.free(OptionalInt.of(waiters));
        }
        LockMode mode = QueueHolders.shared(holders.get(0), readerMark) ? LockMode.SHARED : LockMode.EXCLUSIVE;
        return new KeyState(mode, reported, OptionalInt.of(waiters));
    }
}
