package dev.mortise.lock.tck;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;

import java.util.concurrent.atomic.AtomicInteger;

/** One lease the suite was handed, and what happened to it. */
final class TrackedLease {
    final long id;
    final LockLease lease;
    final TrackedHold hold;
    final boolean nested;
    final long grantedNanos;
    final AtomicInteger lost = new AtomicInteger();
    volatile LockLostEvent lostEvent;
    volatile long lostAtNanos;
    volatile boolean closeStarted;
    volatile long invalidSeenNanos;
    /** When a loss became due (seen invalid while open, or close() said lost); 0 if none. */
    volatile long lossDueNanos;
    volatile String lossDueBecause;
    /** Set when close() returned normally for the hold's last lease after it was valid. */
    volatile boolean closedCleanly;
    volatile boolean reported;
    /** Seen valid again after its loss became due: it turned invalid and back without a loss. */
    volatile boolean resurrected;

    TrackedLease(long id, LockLease lease, TrackedHold hold, boolean nested, long grantedNanos) {
        this.id = id;
        this.lease = lease;
        this.hold = hold;
        this.nested = nested;
        this.grantedNanos = grantedNanos;
    }

    String key() {
        return hold.key;
    }

    @Override
    public String toString() {
        return "lease#" + id + (nested ? " (nested)" : "") + " on '" + PropertyModel.show(hold.key) + "' " + hold;
    }
}
