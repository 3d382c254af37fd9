package dev.mortise.lock.tck;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.MultiLease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The multi-key leases the property suite was handed, and invariant (g): a handle agrees with its
 * parts (the distinct keys in canonical order, the mode asked of each, each part's token, invalid
 * once a part is), and (c) for the whole: exactly one whole-lease {@code onLost} if, and only if, a
 * part got one. Each part is recorded as an ordinary lease of its key ({@link PropertyModel#granted}).
 * Thread-safe.
 */
final class MultiLeaseChecks {

    private final PropertyModel model;
    private final Duration lostGrace;
    private final PropertyViolations violations;
    private final ConcurrentLinkedQueue<TrackedMulti> multis = new ConcurrentLinkedQueue<>();
    private final AtomicLong multiIds = new AtomicLong();

    MultiLeaseChecks(PropertyModel model, Duration lostGrace, PropertyViolations violations) {
        this.model = model;
        this.lostGrace = lostGrace;
        this.violations = violations;
    }

    /**
     * Records a multi-key lease an acquire returned: checks the handle against the request
     * (canonical keys, the mode of each, each part's token) and records every part as a lease of
     * its key, checking (a), (b) and (e) for each as {@link PropertyModel#granted} does.
     *
     * @param askedModes    the mode the request asked each key in (exclusive if asked both ways)
     * @param asked         how the request was made, for reports
     * @param floors        {@link PropertyModel#tokenFloor} of each key, read before the acquire started
     * @param blockingOnLost if positive, also registers an onLost listener on the whole that blocks this long
     */
    TrackedMulti granted(MultiLease lease, PropertyClient client, int worker, Map<String, LockMode> askedModes,
                              String asked, Duration explicitLease, long acquireStartNanos, Map<String, Long> floors,
                              Duration blockingOnLost) {
        List<String> canonical = new ArrayList<>(new java.util.TreeMap<>(askedModes).keySet());
        List<String> keys = lease.keys();
        List<LockLease> partLeases = lease.parts();
        if (!keys.equals(canonical) || partLeases.size() != canonical.size()) {
            violations.add("g", "a multi-key lease asked as " + asked + " reports keys " + keys + " and "
                    + partLeases.size() + " parts, not the distinct keys in canonical order " + canonical);
        }
        List<TrackedLease> parts = new ArrayList<>();
        for (int i = 0; i < partLeases.size(); i++) {
            LockLease part = partLeases.get(i);
            String key = part.key();
            if (!askedModes.containsKey(key)) {
                violations.add("g", "a multi-key lease asked as " + asked + " has a part on '" + PropertyModel.show(key)
                        + "', a key not asked for");
                continue;
            }
            if (i < keys.size() && !keys.get(i).equals(key)) {
                violations.add("g", "part " + i + " of a multi-key lease asked as " + asked + " is on '" + PropertyModel.show(key)
                        + "' but keys() says '" + PropertyModel.show(keys.get(i)) + "'");
            }
            if (lease.part(key) != part || lease.fencingToken(key) != part.fencingToken()) {
                violations.add("g", "a multi-key lease asked as " + asked + " answers part('" + PropertyModel.show(key) + "') / "
                        + "fencingToken('" + PropertyModel.show(key) + "') = " + lease.fencingToken(key) + " unlike its part list ("
                        + part.fencingToken() + ")");
            }
            if (lease.mode(key) != askedModes.get(key)) {
                violations.add("g", "a multi-key lease asked as " + asked + " reports mode " + lease.mode(key)
                        + " for '" + PropertyModel.show(key) + "', asked " + askedModes.get(key));
            }
            parts.add(model.granted(part, client, worker, key, explicitLease, acquireStartNanos,
                    floors.getOrDefault(key, Long.MIN_VALUE), null));
        }
        TrackedMulti tracked = new TrackedMulti(multiIds.incrementAndGet(), lease, List.copyOf(parts), asked);
        for (TrackedLease part : parts) {
            part.hold.note("part of multi#" + tracked.id + " (lease#" + part.id + ")");
        }
        lease.onLost(event -> {
            int count = tracked.lost.incrementAndGet();
            if (count == 1) {
                tracked.lostEvent = event;
            } else {
                violations.add("c", tracked + " got its whole-lease onLost " + count + " times (" + event.reason()
                        + " after " + tracked.lostEvent.reason() + "): it must be told once for the whole");
            }
            if (tracked.lease.isValid()) {
                violations.add("c", tracked + " reports isValid() == true inside its onLost listener ("
                        + event.reason() + ")");
            }
            TrackedLease part = tracked.part(event.key());
            if (part == null || part.hold.token != event.fencingToken()) {
                violations.add("c", tracked + " got an onLost event for none of its parts: " + event);
            }
        });
        if (blockingOnLost != null && !blockingOnLost.isZero() && !blockingOnLost.isNegative()) {
            lease.onLost(event -> PropertyModel.sleep(blockingOnLost));
        }
        multis.add(tracked);
        return tracked;
    }

    /**
     * Checks that an open multi-key lease is invalid once a part is: parts are read first, and
     * a part that turned invalid stays so (or (c) reports it), so the handle read after must be
     * invalid too.
     */
    void observe(TrackedMulti multi) {
        if (multi.closeStarted || multi.reported) {
            return;
        }
        TrackedLease invalid = null;
        for (TrackedLease part : multi.parts) {
            model.losses.observe(part);
            if (invalid == null && !part.lease.isValid()) {
                invalid = part;
            }
        }
        if (invalid != null && !multi.closeStarted && multi.lease.isValid() && !invalid.resurrected
                && !invalid.lease.isValid()) {
            multi.reported = true;
            violations.add("g", multi + " reports isValid() == true while its part " + invalid + " reports false");
        }
    }

    /** The worker is about to close {@code multi}; returns, per part, whether it is its hold's last open lease. */
    List<Boolean> closing(TrackedMulti multi) {
        multi.closeStarted = true;
        List<Boolean> last = new ArrayList<>();
        for (TrackedLease part : multi.parts) {
            model.losses.observe(part);
            last.add(model.losses.closing(part));
        }
        return last;
    }

    /** Multi-key leases not closed by their worker. */
    List<TrackedMulti> unclosed() {
        List<TrackedMulti> open = new ArrayList<>();
        for (TrackedMulti multi : multis) {
            if (!multi.closeStarted) {
                open.add(multi);
            }
        }
        return open;
    }

    /** The first part of {@code multi} that got its onLost, or null. */
    private static TrackedLease firstLostPart(TrackedMulti multi) {
        TrackedLease first = null;
        for (TrackedLease part : multi.parts) {
            if (part.lost.get() != 0 && part.lostAtNanos != 0 && (first == null || part.lostAtNanos - first.lostAtNanos < 0)) {
                first = part;
            }
        }
        return first;
    }

    /** (c) for the whole: one onLost, within the grace period of a part's, and none without a part's. */
    void checkLosses(boolean finalCheck, long now) {
        for (TrackedMulti multi : multis) {
            if (multi.reported) {
                continue;
            }
            TrackedLease part = firstLostPart(multi);
            if (part != null && multi.lost.get() == 0 && (finalCheck || now - part.lostAtNanos > lostGrace.toNanos())) {
                multi.reported = true;
                violations.add("c", multi + ": its part " + part + " got onLost (" + part.lostEvent.reason()
                        + "), but the whole got no onLost within " + lostGrace.toMillis() + " ms");
            }
            if (finalCheck && part == null && multi.lost.get() != 0) {
                multi.reported = true;
                violations.add("c", multi + " got its whole-lease onLost (" + multi.lostEvent.reason()
                        + ") though none of its parts got one");
            }
        }
    }

    /** Whether a multi-key lease still waits for the whole-lease onLost a part's loss made due. */
    boolean lossesPending() {
        for (TrackedMulti multi : multis) {
            if (!multi.reported && multi.lost.get() == 0 && firstLostPart(multi) != null) {
                return true;
            }
        }
        return false;
    }

    /** Every multi-key lease handed out. */
    Collection<TrackedMulti> all() {
        return multis;
    }

    int count() {
        return multis.size();
    }
}
