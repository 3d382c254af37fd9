package dev.mortise.lock.tck;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the property suite knows about every lease it was handed, and the invariants it
 * checks against the leases themselves:
 *
 * <ul>
 *   <li><b>(a) exclusion</b>: no valid exclusive hold on a key overlaps any other valid hold of
 *       the key (shared holds may overlap each other): no two distinct holds on one key, one of
 *       them exclusive, report {@code isValid()} at the same time — checked at every grant and by
 *       a sampler sweeping all keys. Reads are
 *       sandwiched (first, second, first again), so a lease that merely expired between two
 *       reads is not blamed. A hold the test itself deleted on the server ({@code breakHold})
 *       is exempt: the server handed it out again on purpose while the old holder could not
 *       know yet.</li>
 *   <li><b>(b) fencing</b>: a new hold's token is greater than every token of a grant on the
 *       key that had returned before this acquire started; a nested lease has its outer
 *       lease's token; a nested lease is only ever handed to the thread that owns the hold.</li>
 *   <li><b>(c) loss</b>: {@code onLost} fires at most once per lease, only when the lease is
 *       no longer valid, exactly once (within a grace period) for every lease observed
 *       invalid while open or whose {@code close()} reported a loss, and never for the last
 *       lease of a hold whose {@code close()} returned normally after it was valid.</li>
 *   <li><b>(e) closed clients</b>: a lease returned after its client's {@code close()} returned
 *       is not valid.</li>
 *   <li><b>(f) no surprises</b>: operations throw only what their contract says.</li>
 *   <li><b>(g) multi-key leases</b> agree with their parts: the distinct keys in canonical
 *       order, the mode asked of each, each part's token, invalid once a part is; and (c) for
 *       the whole: exactly one whole-lease {@code onLost} if, and only if, a part got one.
 *       Each part is also an ordinary tracked lease of its key's hold.</li>
 *   <li><b>(h) no orphan holds</b>: at the end, every hold an open client lists is one the suite
 *       has an open lease of; the grant of an asynchronous acquire whose {@code cancel} returned true
 *       is released ({@link OrphanHolds}).</li>
 * </ul>
 *
 * This class records grants and checks (a), (b) and (e); (c) is {@link LossChecks}', (g)
 * {@link MultiLeaseChecks}', and the deletions that exempt a hold from (a) are {@link HoldForgets}'.
 * (d), nothing left on the server, is checked by {@link ValidityPropertySuite} at the end.
 * Thread-safe.
 */
final class PropertyModel {


    private final long startNanos = System.nanoTime();
    private final AtomicLong leaseIds = new AtomicLong();
    private final Map<String, Set<TrackedHold>> holdsByKey = new ConcurrentHashMap<>();
    private final Map<String, Long> greatestToken = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<TrackedLease> all = new ConcurrentLinkedQueue<>();
    private final PropertyViolations violations;
    /** (c), loss. */
    final LossChecks losses;
    /** (g), multi-key leases. */
    final MultiLeaseChecks multis;
    /** Holds the test deleted on the server, which (a) does not bind. */
    final HoldForgets forgets;
    /** (h), no orphan holds. */
    final OrphanHolds orphans;
    private final Set<String> reportedPairs = ConcurrentHashMap.newKeySet();
    /** Keys of exclusion violations, for the per-key trace in the report. */
    private final Set<String> violatedKeys = ConcurrentHashMap.newKeySet();

    PropertyModel(Duration lostGrace, PropertyViolations violations) {
        this.violations = violations;
        this.losses = new LossChecks(this, lostGrace, violations);
        this.multis = new MultiLeaseChecks(this, lostGrace, violations);
        this.forgets = new HoldForgets(this);
        this.orphans = new OrphanHolds(this, violations);
    }

    long millisSinceStart(long nanos) {
        return (nanos - startNanos) / 1_000_000;
    }

    /** The token every new grant on {@code key} must exceed: the greatest one returned so far. */
    long tokenFloor(String key) {
        return greatestToken.getOrDefault(key, Long.MIN_VALUE);
    }

    /**
     * Records a lease an acquire returned and checks (a), (b) and (e) at once.
     *
     * @param floor          {@link #tokenFloor} read before the acquire started
     * @param explicitLease  the explicit lease asked for, or null for a renewed one
     * @param blockingOnLost if positive, also registers an onLost listener that blocks this long
     */
    TrackedLease granted(LockLease lease, PropertyClient client, int worker, String key, Duration explicitLease,
                         long acquireStartNanos, long floor, Duration blockingOnLost) {
        long returned = System.nanoTime();
        long token = lease.fencingToken();
        if (!key.equals(lease.key())) {
            violations.add("f", "lease for '" + show(key) + "' reports key '" + show(lease.key()) + "'");
        }
        Set<TrackedHold> holds = holdsByKey.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet());
        TrackedHold existing = null;
        for (TrackedHold hold : holds) {
            if (hold.client == client && hold.token == token) {
                existing = hold;
            }
        }
        TrackedLease tracked;
        if (existing != null) {
            boolean ownsOpenLease = existing.worker == worker && !existing.open().isEmpty();
            if (!ownsOpenLease) {
                violations.add(existing.worker == worker ? "b" : "a", "acquire by worker " + worker + " of " + client
                        + " on '" + show(key) + "' returned token " + token + ", the token of " + existing
                        + (existing.worker == worker ? ", which it had already released (a token handed out twice)"
                        : ", a hold of another thread (a nested lease must only go to the hold's owner)"));
            }
            tracked = new TrackedLease(leaseIds.incrementAndGet(), lease, existing, true, returned);
            existing.note("nested lease#" + tracked.id + " at +" + millisSinceStart(returned) + " ms");
        } else {
            if (token <= floor) {
                violations.add("b", "grant on '" + show(key) + "' to " + client + " has token " + token
                        + ", not above " + floor + ", the greatest token of a grant that returned before this acquire"
                        + " started");
            }
            TrackedHold hold = new TrackedHold(client, key, token, worker, acquireStartNanos, explicitLease,
                    lease.mode());
            hold.note("acquire started +" + millisSinceStart(acquireStartNanos) + " returned +"
                    + millisSinceStart(returned) + " ms");
            tracked = new TrackedLease(leaseIds.incrementAndGet(), lease, hold, false, returned);
        }
        listen(tracked, blockingOnLost);
        tracked.hold.leases.add(tracked);
        holds.add(tracked.hold);
        all.add(tracked);
        if (!tracked.nested) {
            greatestToken.merge(key, token, Math::max);
            long closed = client.closeReturnedNanos();
            if (closed != 0 && closed - returned < 0 && lease.isValid()) {
                violations.add("e", tracked + " was returned " + (returned - closed) / 1_000_000 + " ms after its client's"
                        + " close() returned, and reports isValid() == true: close() must end acquires in flight");
            }
            checkExclusion(tracked.hold, "at the grant of " + tracked);
        }
        return tracked;
    }

    private void listen(TrackedLease tracked, Duration blockingOnLost) {
        tracked.lease.onLost(event -> {
            int count = tracked.lost.incrementAndGet();
            if (count == 1) {
                tracked.lostEvent = event;
                tracked.lostAtNanos = System.nanoTime();
            } else {
                violations.add("c", tracked + " got onLost " + count + " times (" + event.reason() + " after "
                        + tracked.lostEvent.reason() + ")");
            }
            if (tracked.lease.isValid()) {
                violations.add("c", tracked + " reports isValid() == true inside its onLost listener (" + event.reason()
                        + "): a lease must be invalid before its loss is told");
            }
            if (event.fencingToken() != tracked.hold.token || !event.key().equals(tracked.key())) {
                violations.add("c", tracked + " got an onLost event for another hold: " + event);
            }
        });
        if (blockingOnLost != null && !blockingOnLost.isZero() && !blockingOnLost.isNegative()) {
            tracked.lease.onLost(event -> sleep(blockingOnLost));
        }
    }

    /** The client's listener saw a LOST event: every lease of that hold must already be invalid. */
    void lostEventTold(PropertyClient client, String key, long token) {
        Set<TrackedHold> holds = holdsByKey.get(key);
        if (holds == null) {
            return;
        }
        for (TrackedHold hold : holds) {
            if (hold.client == client && hold.token == token) {
                for (TrackedLease lease : hold.open()) {
                    if (lease.lease.isValid()) {
                        violations.add("c", lease + " reports isValid() == true while the LOST event of its hold is"
                                + " told to the client's LockListener");
                    }
                }
            }
        }
    }

    // ---- (a) exclusion ----------------------------------------------------------------------

    /** Checks that no other hold on {@code hold.key} is valid while {@code hold} is. */
    private void checkExclusion(TrackedHold hold, String when) {
        Set<TrackedHold> holds = holdsByKey.get(hold.key);
        if (holds == null) {
            return;
        }
        for (TrackedHold other : holds) {
            if (other != hold) {
                checkPair(hold, other, when);
            }
        }
    }

    /** One sweep of the sampler over every key with two or more holds. */
    void sweep() {
        for (Set<TrackedHold> holds : holdsByKey.values()) {
            List<TrackedHold> open = new ArrayList<>();
            for (TrackedHold hold : holds) {
                if (!hold.open().isEmpty()) {
                    open.add(hold);
                }
            }
            for (TrackedHold hold : open) {
                for (TrackedLease lease : hold.open()) {
                    losses.observe(lease);
                }
            }
            for (int i = 0; i < open.size(); i++) {
                for (int j = i + 1; j < open.size(); j++) {
                    checkPair(open.get(i), open.get(j), "by the sampler");
                }
            }
        }
        for (TrackedMulti multi : multis.all()) {
            multis.observe(multi);
        }
        losses.checkLossesDue(false);
    }

    private void checkPair(TrackedHold first, TrackedHold second, String when) {
        List<TrackedLease> firstOpen = first.open();
        List<TrackedLease> secondOpen = second.open();
        if (first.mode == LockMode.SHARED && second.mode == LockMode.SHARED) {
            return; // shared holds of a key may be valid together
        }
        if (firstOpen.isEmpty() || secondOpen.isEmpty() || forgets.exposed(first) || forgets.exposed(second)) {
            return;
        }
        LockLease a = firstOpen.get(0).lease;
        LockLease b = secondOpen.get(0).lease;
        // Sandwich: a valid, then b valid, then a still valid means both were valid when b was read.
        if (!a.isValid()) {
            return;
        }
        Duration bRemaining = b.remaining();
        if (!b.isValid()) {
            return;
        }
        Duration aRemaining = a.remaining();
        if (!a.isValid() || forgets.exposed(first) || forgets.exposed(second)) {
            return;
        }
        String pair = Math.min(firstOpen.get(0).id, secondOpen.get(0).id) + "/"
                + Math.max(firstOpen.get(0).id, secondOpen.get(0).id);
        if (reportedPairs.add(pair)) {
            // Told apart because the fix differs: after an extend whose reply was lost the server may
            // keep the new (shorter) lease, which the client must then assume.
            boolean unknownExtend = first.extendOutcomeUnknown || second.extendOutcomeUnknown
                    || first.extendsInFlight.get() > 0 || second.extendsInFlight.get() > 0;
            violatedKeys.add(first.key);
            violations.add(unknownExtend ? "a: extend in flight or its reply lost" : "a", "two holds on '" + show(first.key) + "' report isValid() == true at once (" + when + "): "
                    + describe(firstOpen.get(0)) + " with " + aRemaining.toMillis() + " ms remaining, and "
                    + describe(secondOpen.get(0)) + " with " + bRemaining.toMillis() + " ms remaining");
        }
    }

    private String describe(TrackedLease lease) {
        return lease + " {" + lease.hold.history() + "} {faults of its client: " + lease.hold.client.faults() + "}";
    }


    /** Every hold the run saw on the first {@code max} keys with an exclusion violation, by token. */
    String traces(int max) {
        StringBuilder text = new StringBuilder();
        violatedKeys.stream().limit(max).forEach(key -> {
            text.append("  holds on '").append(show(key)).append("' in token order:\n");
            holdsByKey.getOrDefault(key, Set.of()).stream()
                    .sorted(java.util.Comparator.comparingLong((TrackedHold h) -> h.token))
                    .forEach(hold -> text.append("    ").append(hold).append(hold.exposed ? " (deleted by the test)" : "")
                            .append(": ").append(hold.history()).append('\n'));
        });
        return text.toString();
    }

    Collection<TrackedLease> all() {
        return all;
    }

    /** The holds recorded on {@code key}. */
    Set<TrackedHold> holdsOn(String key) {
        return holdsByKey.getOrDefault(key, Set.of());
    }

    /** A random open lease of any worker (for breakHold), or null. */
    TrackedLease anyOpen(java.util.Random random) {
        List<TrackedHold> candidates = new ArrayList<>();
        for (Set<TrackedHold> holds : holdsByKey.values()) {
            for (TrackedHold hold : holds) {
                if (!hold.open().isEmpty()) {
                    candidates.add(hold);
                }
            }
        }
        if (candidates.isEmpty()) {
            return null;
        }
        List<TrackedLease> open = candidates.get(random.nextInt(candidates.size())).open();
        return open.isEmpty() ? null : open.get(0);
    }

    static String show(String key) {
        StringBuilder shown = new StringBuilder();
        key.codePoints().forEach(cp -> {
            if (cp < 0x20 || cp == 0x7f) {
                shown.append(String.format("\\u%04x", cp));
            } else {
                shown.appendCodePoint(cp);
            }
        });
        return shown.toString();
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}