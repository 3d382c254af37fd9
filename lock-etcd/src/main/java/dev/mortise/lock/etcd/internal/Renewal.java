package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Grant;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The watchdog's renewal of many holds: per lease (usually the one session lease), a
 * keep-alive and, at the same time, one request that notices a hold's key deleted behind
 * our back. The keep-alive is what lets the core extend validity from the tick's start; it
 * also stands in for the session's own keep-alive of that period (see
 * {@link LeaseKeeper}), so a renewal costs one request more than an idle session, whatever
 * the number of holds.
 *
 * <p>The check is, for a session lease with more holds than fit in one transaction,
 * {@code LeaseTimeToLive(keys=true)}: etcd lists every key attached to the lease, and a
 * hold whose key is not in the list is gone. For fewer holds, or when the list would be too
 * large for one gRPC message, it is read-only transactions that read every hold's key and
 * compare its create revision. Thread-safe.
 */
final class Renewal {

    /** etcd's default --max-txn-ops. */
    private static final int MAX_TXN_OPS = 128;

    /**
     * Above this many bytes of attached keys, listing them would come near gRPC's default
     * 4 MiB inbound message limit: the keys are read in transactions instead.
     */
    private static final long MAX_LISTED_BYTES = 1L << 20;

    /** What one attached key costs in the listing beyond its bytes (protobuf framing, jetcd namespace). */
    private static final int LISTED_OVERHEAD = 24;

    private final LeaseKeeper leases;
    private final LockQueue queue;
    private final Rpc rpc;

    Renewal(LeaseKeeper leases, LockQueue queue, Rpc rpc) {
        this.leases = leases;
        this.queue = queue;
        this.rpc = rpc;
    }

    Set<Grant> renewAll(Collection<Grant> grants) {
        if (grants.isEmpty()) {
            return Set.of();
        }
        String someKey = grants.iterator().next().key();
        long sentAt = System.nanoTime();
        Map<EtcdLease, List<Grant>> byLease = new LinkedHashMap<>();
        for (Grant grant : grants) {
            HoldState state = grant.state();
            byLease.computeIfAbsent(state.lease(), l -> new ArrayList<>()).add(grant);
        }
        Map<EtcdLease, CompletableFuture<LeaseKeepAliveResponse>> alive = new LinkedHashMap<>();
        Map<EtcdLease, CompletableFuture<LeaseTimeToLiveResponse>> listings = new LinkedHashMap<>();
        List<List<Grant>> readChunks = new ArrayList<>();
        List<CompletableFuture<TxnResponse>> reads = new ArrayList<>();
        for (Map.Entry<EtcdLease, List<Grant>> entry : byLease.entrySet()) {
            EtcdLease lease = entry.getKey();
            alive.put(lease, leases.keepAliveAsync(lease));
            if (listable(lease, entry.getValue())) {
                listings.put(lease, leases.attachedKeysAsync(lease));
            } else {
                startReads(entry.getValue(), readChunks, reads);
            }
        }
        long deadline = rpc.deadline();
        Set<EtcdLease> deadLeases = new HashSet<>();
        for (Map.Entry<EtcdLease, CompletableFuture<LeaseKeepAliveResponse>> entry : alive.entrySet()) {
            boolean live;
            try {
                live = leases.settle(entry.getKey(), sentAt, entry.getValue(), deadline, someKey);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Rpc.failure(e, someKey, "renew locks");
            }
            if (live) {
                entry.getKey().renewedByWatchdog(sentAt);
            } else {
                deadLeases.add(entry.getKey());
            }
        }
        Set<Grant> gone = new HashSet<>();
        for (Map.Entry<EtcdLease, CompletableFuture<LeaseTimeToLiveResponse>> entry : listings.entrySet()) {
            EtcdLease lease = entry.getKey();
            List<Grant> onLease = byLease.get(lease);
            LeaseTimeToLiveResponse listing;
            Set<ByteSequence> attached;
            try {
                listing = rpc.await(entry.getValue(), deadline, someKey,
                        "list the keys of lease " + Long.toHexString(lease.id()));
                attached = attachedKeys(lease, listing);
            } catch (RuntimeException e) {
                // A listing etcd would not send (too large for a gRPC message, say): read each key instead.
                listing = null;
                attached = null;
            }
            if (attached == null) {
                // Or our fence key is not attached any more, so the listing cannot be read.
                startReads(onLease, readChunks, reads);
                continue;
            }
            for (Grant grant : onLease) {
                HoldState state = grant.state();
                if (deadLeases.contains(lease) || listing.getTTL() < 0 || !attached.contains(state.ownKey())) {
                    gone.add(grant);
                    lease.grants().remove(grant);
                }
            }
        }
        for (int chunk = 0; chunk < reads.size(); chunk++) {
            TxnResponse response = rpc.await(reads.get(chunk), deadline, someKey, "check that held locks still exist");
            List<GetResponse> gets = response.getGetResponses();
            for (int i = 0; i < gets.size(); i++) {
                Grant grant = readChunks.get(chunk).get(i);
                HoldState state = grant.state();
                List<KeyValue> kvs = gets.get(i).getKvs();
                if (deadLeases.contains(state.lease()) || kvs.isEmpty()
                        || kvs.get(0).getCreateRevision() != state.revision()) {
                    gone.add(grant);
                    state.lease().grants().remove(grant);
                }
            }
        }
        return gone;
    }

    /**
     * Whether the holds on {@code lease} are checked by listing its keys: a session lease
     * (it has a fence key to anchor the listing) with more holds than one transaction
     * reads, and a listing small enough for one gRPC message.
     */
    private static boolean listable(EtcdLease lease, List<Grant> onLease) {
        if (!lease.shared() || lease.fenceKey() == null || onLease.size() <= MAX_TXN_OPS) {
            return false;
        }
        long bytes = 0;
        for (Grant grant : lease.grants()) {
            bytes += ((HoldState) grant.state()).ownKey().size() + LISTED_OVERHEAD;
            if (bytes > MAX_LISTED_BYTES) {
                return false;
            }
        }
        return true;
    }

    /** Starts one read-only transaction per {@value #MAX_TXN_OPS} grants; chunk i of grants is read by reads[i]. */
    private void startReads(List<Grant> grants, List<List<Grant>> chunks, List<CompletableFuture<TxnResponse>> reads) {
        for (int from = 0; from < grants.size(); from += MAX_TXN_OPS) {
            List<Grant> chunk = grants.subList(from, Math.min(grants.size(), from + MAX_TXN_OPS));
            chunks.add(chunk);
            reads.add(queue.present(chunk.stream().map(g -> ((HoldState) g.state()).ownKey()).toList()));
        }
    }

    /**
     * The keys attached to {@code lease} as this backend names them, or null if the listing
     * does not hold the lease's fence key. etcd lists keys as stored, with the jetcd
     * client's namespace (if any) in front; the fence key, always attached to its session
     * lease, tells how long that namespace is.
     */
    static Set<ByteSequence> attachedKeys(EtcdLease lease, LeaseTimeToLiveResponse listing) {
        List<ByteSequence> keys = listing.getKeys();
        ByteSequence fence = lease.fenceKey();
        int namespace = -1;
        for (ByteSequence key : keys) {
            if (key.size() >= fence.size() && key.substring(key.size() - fence.size()).equals(fence)) {
                namespace = key.size() - fence.size();
                break;
            }
        }
        if (namespace < 0) {
            return listing.getTTL() < 0 ? Set.of() : null;
        }
        Set<ByteSequence> attached = new HashSet<>(keys.size() * 4 / 3 + 1);
        for (ByteSequence key : keys) {
            if (key.size() > namespace) {
                attached.add(namespace == 0 ? key : key.substring(namespace));
            }
        }
        return attached;
    }
}
