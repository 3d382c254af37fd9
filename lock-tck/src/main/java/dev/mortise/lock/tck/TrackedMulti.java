package dev.mortise.lock.tck;

import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.MultiLease;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One {@link MultiLease} the suite was handed: its parts are ordinary tracked leases (each a
 * lease of its key's hold, so (a), (b), (c) and (e) apply to every part as to any lease), and
 * the handle itself must agree with them.
 */
final class TrackedMulti {
    final long id;
    final MultiLease lease;
    /** The parts in canonical order. */
    final List<TrackedLease> parts;
    final String asked;
    final AtomicInteger lost = new AtomicInteger();
    volatile LockLostEvent lostEvent;
    volatile boolean closeStarted;
    volatile boolean reported;

    TrackedMulti(long id, MultiLease lease, List<TrackedLease> parts, String asked) {
        this.id = id;
        this.lease = lease;
        this.parts = parts;
        this.asked = asked;
    }

    TrackedLease part(String key) {
        for (TrackedLease part : parts) {
            if (part.key().equals(key)) {
                return part;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("multi#" + id + " (asked " + asked + ") of [");
        for (int i = 0; i < parts.size(); i++) {
            text.append(i == 0 ? "" : ", ").append(parts.get(i));
        }
        return text.append(']').toString();
    }
}
