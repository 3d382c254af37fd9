package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;

import java.util.concurrent.locks.ReentrantLock;

/**
 * What a {@link dev.mortise.lock.spi.Grant} carries for etcd: our own key, its create
 * revision (the fencing token, and the owner check of every later write), the hold's mode
 * (shared or exclusive: renewal, moves and release treat both alike, since the key's name
 * already says which) and the lease the key is attached to now. The lease changes when a
 * renewal asks for another TTL (see {@link LeaseMove}); the key, its create revision and the
 * mode never do.
 *
 * <p>Thread-safe: moves of one hold are serialized on this object; readers see the lease
 * of the last move that etcd confirmed.
 */
final class HoldState {

    private final ByteSequence ownKey;
    private final long revision;
    private final boolean shared;
    /**
     * Held across a renewal or move of this hold (round trips to etcd), so that a linger and a
     * watchdog move of the same hold do not interleave. A lock, not a monitor: a virtual caller of
     * {@code extend} or {@code closeLingering} does not pin its carrier on JDK 21-23.
     */
    private final ReentrantLock moving = new ReentrantLock();
    private volatile EtcdLease lease;
    private volatile EtcdLease stray;
    private volatile ByteSequence value;

    HoldState(ByteSequence ownKey, long revision, boolean shared, EtcdLease lease) {
        this.ownKey = ownKey;
        this.revision = revision;
        this.shared = shared;
        this.lease = lease;
    }

    ByteSequence ownKey() {
        return ownKey;
    }

    long revision() {
        return revision;
    }

    /** Whether this is a shared (read) hold. */
    boolean shared() {
        return shared;
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

    /**
     * The value of a permit key as we last knew it (a {@code setPermits} may have rewritten it
     * since), or null for a lock hold, whose value is its owner. A move puts it again.
     */
    ByteSequence value() {
        return value;
    }

    void value(ByteSequence now) {
        this.value = now;
    }

    @Override
    public String toString() {
        return "HoldState[" + ownKey + ", revision=" + revision + (shared ? ", shared" : "") + ", " + lease + "]";
    }

    /** The lock held across a renewal or move of this hold ({@link HoldRenewals}, {@link LeaseMove}). */
    ReentrantLock moving() {
        return moving;
    }
}
