package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;

/**
 * What a {@link dev.mortise.lock.spi.Grant} carries for etcd: our own key, its create
 * revision (the fencing token, and the owner check of every later write) and the lease the
 * key is attached to now. The lease changes when a renewal asks for another TTL (see
 * {@link LeaseMove}); the key and its create revision never do.
 *
 * <p>Thread-safe: moves of one hold are serialized on this object; readers see the lease
 * of the last move that etcd confirmed.
 */
final class HoldState {

    private final ByteSequence ownKey;
    private final long revision;
    private volatile EtcdLease lease;
    private volatile EtcdLease stray;

    HoldState(ByteSequence ownKey, long revision, EtcdLease lease) {
        this.ownKey = ownKey;
        this.revision = revision;
        this.lease = lease;
    }

    ByteSequence ownKey() {
        return ownKey;
    }

    long revision() {
        return revision;
    }

    /** The lease our key is attached to, as of the last confirmed grant or move. */
    EtcdLease lease() {
        return lease;
    }

    void moved(EtcdLease to) {
        this.lease = to;
    }

    /**
     * A per-lock lease our key may have been moved to by a move whose answer never came, or
     * null. It cannot be revoked while we hold (it might carry our key); release revokes it.
     */
    EtcdLease stray() {
        return stray;
    }

    /** Remembers only the latest stray: an older one simply expires with its TTL. */
    void stray(EtcdLease lease) {
        this.stray = lease;
    }

    @Override
    public String toString() {
        return "HoldState[" + ownKey + ", revision=" + revision + ", " + lease + "]";
    }
}
