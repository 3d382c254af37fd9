package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Grant;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The watchdog's renewal of many holds in about one round trip: a keep-alive per lease
 * (usually the one session lease) and, at the same time, one read-only transaction that
 * checks every hold's key still exists with its create revision. The keep-alive is what
 * lets the core extend validity from the tick's start; the read is what notices a key
 * deleted behind our back. Thread-safe.
 */
final class Renewal {

    /** etcd's default --max-txn-ops. */
    private static final int MAX_TXN_OPS = 128;

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
        Map<EtcdLease, CompletableFuture<LeaseKeepAliveResponse>> alive = new LinkedHashMap<>();
        for (Grant grant : grants) {
            HoldState state = grant.state();
            alive.computeIfAbsent(state.lease(), leases::keepAliveAsync);
        }
        List<Grant> ordered = new ArrayList<>(grants);
        List<CompletableFuture<TxnResponse>> reads = new ArrayList<>();
        for (int from = 0; from < ordered.size(); from += MAX_TXN_OPS) {
            List<ByteSequence> ownKeys = ordered.subList(from, Math.min(ordered.size(), from + MAX_TXN_OPS)).stream()
                    .map(g -> ((HoldState) g.state()).ownKey()).toList();
            reads.add(queue.present(ownKeys));
        }
        long deadline = rpc.deadline();
        Set<Grant> gone = new HashSet<>();
        Set<EtcdLease> deadLeases = new HashSet<>();
        for (Map.Entry<EtcdLease, CompletableFuture<LeaseKeepAliveResponse>> entry : alive.entrySet()) {
            boolean live;
            try {
                live = leases.settle(entry.getKey(), sentAt, entry.getValue(), deadline, someKey);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Rpc.failure(e, someKey, "renew locks");
            }
            if (!live) {
                deadLeases.add(entry.getKey());
            }
        }
        for (int chunk = 0; chunk < reads.size(); chunk++) {
            TxnResponse response = rpc.await(reads.get(chunk), deadline, someKey, "check that held locks still exist");
            List<GetResponse> gets = response.getGetResponses();
            for (int i = 0; i < gets.size(); i++) {
                Grant grant = ordered.get(chunk * MAX_TXN_OPS + i);
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
}
