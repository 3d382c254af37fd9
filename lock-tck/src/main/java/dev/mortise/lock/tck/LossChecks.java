package dev.mortise.lock.tck;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Invariant (c), loss: {@code onLost} fires at most once per lease, only when the lease is no
 * longer valid, exactly once (within a grace period) for every lease observed invalid while open
 * or whose {@code close()} reported a loss, and never for the last lease of a hold whose
 * {@code close()} returned normally after it was valid. Thread-safe.
 */
final class LossChecks {

    private final PropertyModel model;
    private final Duration lostGrace;
    private final PropertyViolations violations;

    LossChecks(PropertyModel model, Duration lostGrace, PropertyViolations violations) {
        this.model = model;
        this.lostGrace = lostGrace;
        this.violations = violations;
    }

    /** Reads isValid() of an open lease; the first time it is false, its loss becomes due. */
    void observe(TrackedLease lease) {
        if (lease.closeStarted) {
            return;
        }
        if (lease.lossDueNanos != 0) {
            if (lease.invalidSeenNanos != 0 && !lease.resurrected && lease.lost.get() == 0 && lease.lease.isValid()) {
                lease.resurrected = true;
            }
            return;
        }
        if (!lease.lease.isValid() && !lease.closeStarted) {
            long now = System.nanoTime();
            lease.invalidSeenNanos = now;
            lossDue(lease, now, "isValid() turned false at +" + model.millisSinceStart(now) + " ms while the lease was open");
        }
    }

    /** A loss must be told for {@code lease} within the grace period from {@code now}. */
    void lossDue(TrackedLease lease, long now, String because) {
        if (lease.lossDueNanos == 0) {
            lease.lossDueBecause = because;
            lease.lossDueNanos = now;
        }
    }

    /** The worker is about to close {@code lease}; returns whether it is the hold's last open lease. */
    boolean closing(TrackedLease lease) {
        boolean last = lease.hold.open().size() == 1;
        lease.closeStarted = true;
        return last;
    }

    /** close() returned normally. */
    void closedNormally(TrackedLease lease, boolean wasValid, boolean last) {
        if (wasValid && last) {
            lease.closedCleanly = true;
            if (lease.lost.get() != 0) {
                violations.add("c", lease + " was valid and its close() returned normally (the server released it as"
                        + " ours), yet it got onLost (" + lease.lostEvent.reason() + ")");
            }
        }
    }

    /** close() threw LockLostException: the loss must have been told (or be told soon). */
    void closedLost(TrackedLease lease) {
        lossDue(lease, System.nanoTime(), "close() threw LockLostException");
    }

    /**
     * Reports every lease whose loss became due more than the grace period ago without an
     * onLost, and (once {@code finalCheck}) every cleanly closed lease that got one since.
     */
    void checkLossesDue(boolean finalCheck) {
        long now = System.nanoTime();
        model.multis.checkLosses(finalCheck, now);
        for (TrackedLease lease : model.all()) {
            if (lease.reported) {
                continue;
            }
            long due = lease.lossDueNanos;
            if (due != 0 && lease.lost.get() == 0 && (finalCheck || now - due > lostGrace.toNanos())) {
                lease.reported = true;
                violations.add(lease.resurrected ? "c: valid again without a loss" : "c", lease + ": "
                        + lease.lossDueBecause + (lease.resurrected ? ", then reported isValid() == true again" : "")
                        + ", but no onLost came within "
                        + lostGrace.toMillis() + " ms (granted at +" + model.millisSinceStart(lease.grantedNanos)
                        + " ms; now isValid() == " + lease.lease.isValid() + ", remaining " + lease.lease.remaining()
                        .toMillis() + " ms" + (lease.hold.client.closeStarted() ? "; its client was closed" : "")
                        + "; hold history: " + lease.hold.history() + "; faults of its client: "
                        + lease.hold.client.faults() + ")");
            }
            if (finalCheck && lease.closedCleanly && lease.lost.get() != 0) {
                lease.reported = true;
                violations.add("c", lease + " was closed cleanly while valid, yet got onLost later ("
                        + lease.lostEvent.reason() + ")");
            }
        }
    }

    /** Whether any lease still waits for a due onLost. */
    boolean lossesPending() {
        for (TrackedLease lease : model.all()) {
            if (!lease.reported && lease.lossDueNanos != 0 && lease.lost.get() == 0) {
                return true;
            }
        }
        return model.multis.lossesPending();
    }

    /** Every lease not closed by its worker (to check after the clients closed). */
    List<TrackedLease> unclosed() {
        List<TrackedLease> open = new ArrayList<>();
        for (TrackedLease lease : model.all()) {
            if (!lease.closeStarted) {
                open.add(lease);
            }
        }
        return open;
    }
}
