package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Grant;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The renewal's check of a session lease with many holds: {@code LeaseTimeToLive(keys=true)}
 * lists every key attached to the lease, and a hold whose key is not in the list is gone
 * ({@link Renewal}). When it is worth it, and how the listed keys are read back. Stateless.
 */
final class AttachedKeys {

    /** etcd's default --max-txn-ops. */
    static final int MAX_TXN_OPS = 128;

    /**
     * Above this many bytes of attached keys, listing them would come near gRPC's default
     * 4 MiB inbound message limit: the keys are read in transactions instead.
     */
    private static final long MAX_LISTED_BYTES = 1L << 20;

    /** What one attached key costs in the listing beyond its bytes (protobuf framing, jetcd namespace). */
    private static final int LISTED_OVERHEAD = 24;

    private AttachedKeys() {
    }

    /**
     * Whether the holds on {@code lease} are checked by listing its keys: a session lease
     * (it has a fence key to anchor the listing) with more holds than one transaction
     * reads, and a listing small enough for one gRPC message.
     */
    static boolean listable(EtcdLease lease, List<Grant> onLease) {
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
