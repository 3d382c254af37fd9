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
 * hold whose key is not in the list is gone ({@link AttachedKeys}). For fewer holds, or when the list would be too
 * large for one gRPC message, it is read-only transactions that read every hold's key and
 * compare its create revision. Thread-safe.
 */
final class Renewal {

    private final LeaseKeeper leases;
    private final LockQueue queue;
    private final Rpc rpc;

    Renewal(LeaseKeeper leases, LockQueue queue, Rpc rpc) {
        this.leases = leases;
        this.queue = queue;
        this.rpc = rpc;
    }

    /** The keep-alives, listings and reads of one renewal, all sent before any answer is awaited. */
    private static final class Round {
        final Map<EtcdLease, List<Grant>> byLease = new LinkedHashMap<>();
        final Map<EtcdLease, CompletableFuture<LeaseKeepAliveResponse>> alive = new LinkedHashMap<>();
        final Map<EtcdLease, CompletableFuture<LeaseTimeToLiveResponse>> listings = new LinkedHashMap<>();
        final List<List<Grant>> readChunks = new ArrayList<>();
        final List<CompletableFuture<TxnResponse>> reads = new ArrayList<>();
        final Set<EtcdLease> deadLeases = new HashSet<>();
        final Set<Grant> gone = new HashSet<>();
    }

    /** @return the grants whose key is gone (or whose lease is) */
    Set<Grant> renewAll(Collection<Grant> grants) {
        if (grants.isEmpty()) {
            return Set.of();
        }
        String someKey = grants.iterator().next().key();
        long sentAt = System.nanoTime();
        Round round = new Round();
        for (Grant grant : grants) {
            HoldState state = grant.state();
            round.byLease.computeIfAbsent(state.lease(), l -> new ArrayList<>()).add(grant);
        }
        for (Map.Entry<EtcdLease, List<Grant>> entry : round.byLease.entrySet()) {
            EtcdLease lease = entry.getKey();
            round.alive.put(lease, leases.keepAliveAsync(lease));
            if (AttachedKeys.listable(lease, entry.getValue())) {
                round.listings.put(lease, leases.attachedKeysAsync(lease));
            } else {
                startReads(entry.getValue(), round);
            }
        }
        long deadline = rpc.deadline();
        settleKeepAlives(round, sentAt, deadline, someKey);
        checkListings(round, deadline, someKey);
        checkReads(round, deadline, someKey);
        return round.gone;
    }

    /** Waits for every keep-alive: a live lease is renewed from {@code sentAt}, a dead one noted. */
    private void settleKeepAlives(Round round, long sentAt, long deadline, String someKey) {
        for (Map.Entry<EtcdLease, CompletableFuture<LeaseKeepAliveResponse>> entry : round.alive.entrySet()) {
            boolean live;
            try {
                live = leases.settle(entry.getKey(), sentAt, entry.getValue(), deadline, someKey);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw EtcdErrors.failure(e, someKey, "renew locks");
            }
            if (live) {
                entry.getKey().renewedByWatchdog(sentAt);
            } else {
                round.deadLeases.add(entry.getKey());
            }
        }
    }

    /** The holds checked by listing their lease's keys: gone unless listed (a listing that fails: read instead). */
    private void checkListings(Round round, long deadline, String someKey) {
        for (Map.Entry<EtcdLease, CompletableFuture<LeaseTimeToLiveResponse>> entry : round.listings.entrySet()) {
            EtcdLease lease = entry.getKey();
            List<Grant> onLease = round.byLease.get(lease);
            LeaseTimeToLiveResponse listing;
            Set<ByteSequence> attached;
            try {
                listing = rpc.await(entry.getValue(), deadline, someKey,
                        "list the keys of lease " + Long.toHexString(lease.id()));
                attached = AttachedKeys.attachedKeys(lease, listing);
            } catch (RuntimeException e) {
                // A listing etcd would not send (too large for a gRPC message, say): read each key instead.
                listing = null;
                attached = null;
            }
            if (attached == null) {
                // Or our fence key is not attached any more, so the listing cannot be read.
                startReads(onLease, round);
                continue;
            }
            for (Grant grant : onLease) {
                HoldState state = grant.state();
                if (round.deadLeases.contains(lease) || listing.getTTL() < 0 || !attached.contains(state.ownKey())) {
                    round.gone.add(grant);
                    lease.grants().remove(grant);
                }
            }
        }
    }

    /** The holds checked by reading their keys: gone unless the key is there with its create revision. */
    private void checkReads(Round round, long deadline, String someKey) {
        for (int chunk = 0; chunk < round.reads.size(); chunk++) {
            TxnResponse response = rpc.await(round.reads.get(chunk), deadline, someKey,
                    "check that held locks still exist");
            List<GetResponse> gets = response.getGetResponses();
            for (int i = 0; i < gets.size(); i++) {
                Grant grant = round.readChunks.get(chunk).get(i);
                HoldState state = grant.state();
                List<KeyValue> kvs = gets.get(i).getKvs();
                if (round.deadLeases.contains(state.lease()) || kvs.isEmpty()
                        || kvs.get(0).getCreateRevision() != state.revision()) {
                    round.gone.add(grant);
                    state.lease().grants().remove(grant);
                }
            }
        }
    }

    /** Starts one read-only transaction per {@value AttachedKeys#MAX_TXN_OPS} grants; chunk i is read by reads[i]. */
    private void startReads(List<Grant> grants, Round round) {
        for (int from = 0; from < grants.size(); from += AttachedKeys.MAX_TXN_OPS) {
            List<Grant> chunk = grants.subList(from, Math.min(grants.size(), from + AttachedKeys.MAX_TXN_OPS));
            round.readChunks.add(chunk);
            round.reads.add(queue.present(chunk.stream().map(g -> ((HoldState) g.state()).ownKey()).toList()));
        }
    }
}
