package dev.mortise.lock.tck;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.MultiLease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

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
 * </ul>
 *
 * (d), nothing left on the server, is checked by {@link ValidityPropertySuite} at the end.
 * Thread-safe.
 */
final class PropertyModel {

    /** One server-side hold as the model saw it: leases of one client on one key with one token. */
    static final class TrackedHold {
        final PropertyClient client;
        final String key;
        final long token;
        final int worker;
        final long acquireStartNanos;
        final Duration explicitLease;
        /** The mode the hold reported at its grant: shared holds may be valid together. */
        final LockMode mode;
        final Set<TrackedLease> leases = ConcurrentHashMap.newKeySet();
        volatile boolean exposed;
        /** An extend of this hold failed after the server may have applied it (its reply was lost). */
        volatile boolean extendOutcomeUnknown;
        /** Extends of this hold sent and not answered yet (the server may have applied them already). */
        final AtomicInteger extendsInFlight = new AtomicInteger();
        private final List<String> history = new ArrayList<>(); // guarded by itself

        /** Remembers what happened to the hold (the last few things), for violation reports. */
        void note(String what) {
            synchronized (history) {
                if (history.size() == 16) {
                    history.remove(1); // keep the grant
                }
                history.add(what);
            }
        }

        String history() {
            synchronized (history) {
                return String.join("; ", history);
            }
        }

        TrackedHold(PropertyClient client, String key, long token, int worker, long acquireStartNanos,
                    Duration explicitLease, LockMode mode) {
            this.mode = mode;
            this.client = client;
            this.key = key;
            this.token = token;
            this.worker = worker;
            this.acquireStartNanos = acquireStartNanos;
            this.explicitLease = explicitLease;
        }

        /** The hold's open leases (close not started). */
        List<TrackedLease> open() {
            List<TrackedLease> open = new ArrayList<>();
            for (TrackedLease lease : leases) {
                if (!lease.closeStarted) {
                    open.add(lease);
                }
            }
            return open;
        }

        @Override
        public String toString() {
            return "hold[token " + token + " of " + client + ", worker " + worker + ", "
                    + (explicitLease == null ? "renewed" : "explicit lease " + explicitLease.toMillis() + " ms")
                    + (mode == LockMode.SHARED ? ", shared" : "") + "]";
        }
    }

    /** One lease the suite was handed, and what happened to it. */
    static final class TrackedLease {
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

    /**
     * One {@link MultiLease} the suite was handed: its parts are ordinary tracked leases (each a
     * lease of its key's hold, so (a), (b), (c) and (e) apply to every part as to any lease), and
     * the handle itself must agree with them.
     */
    static final class TrackedMulti {
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

    /** A deletion of holds on the server by the test ({@code breakHold}). */
    private static final class Forget {
        final String key;
        final PropertyClient client;
        final boolean clientWide;
        volatile long endNanos;

        Forget(String key, PropertyClient client, boolean clientWide) {
            this.key = key;
            this.client = client;
            this.clientWide = clientWide;
        }

        boolean touches(TrackedHold hold) {
            return key.equals(hold.key) || (clientWide && client == hold.client);
        }
    }

    private final long startNanos = System.nanoTime();
    private final Duration lostGrace;
    private final AtomicLong leaseIds = new AtomicLong();
    private final Map<String, Set<TrackedHold>> holdsByKey = new ConcurrentHashMap<>();
    private final Map<String, Long> greatestToken = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<TrackedLease> all = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<TrackedMulti> multis = new ConcurrentLinkedQueue<>();
    private final AtomicLong multiIds = new AtomicLong();
    private final List<Forget> forgets = new CopyOnWriteArrayList<>();
    private final Violations violations;
    private final Set<String> reportedPairs = ConcurrentHashMap.newKeySet();
    /** Keys of exclusion violations, for the per-key trace in the report. */
    private final Set<String> violatedKeys = ConcurrentHashMap.newKeySet();

    PropertyModel(Duration lostGrace, Violations violations) {
        this.lostGrace = lostGrace;
        this.violations = violations;
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

    // ---- multi-key leases ---------------------------------------------------------------------

    /**
     * Records a multi-key lease an acquire returned: checks the handle against the request
     * (canonical keys, the mode of each, each part's token) and records every part as a lease of
     * its key, checking (a), (b) and (e) for each as {@link #granted} does.
     *
     * @param askedModes    the mode the request asked each key in (exclusive if asked both ways)
     * @param asked         how the request was made, for reports
     * @param floors        {@link #tokenFloor} of each key, read before the acquire started
     * @param blockingOnLost if positive, also registers an onLost listener on the whole that blocks this long
     */
    TrackedMulti grantedMulti(MultiLease lease, PropertyClient client, int worker, Map<String, LockMode> askedModes,
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
                violations.add("g", "a multi-key lease asked as " + asked + " has a part on '" + show(key)
                        + "', a key not asked for");
                continue;
            }
            if (i < keys.size() && !keys.get(i).equals(key)) {
                violations.add("g", "part " + i + " of a multi-key lease asked as " + asked + " is on '" + show(key)
                        + "' but keys() says '" + show(keys.get(i)) + "'");
            }
            if (lease.part(key) != part || lease.fencingToken(key) != part.fencingToken()) {
                violations.add("g", "a multi-key lease asked as " + asked + " answers part('" + show(key) + "') / "
                        + "fencingToken('" + show(key) + "') = " + lease.fencingToken(key) + " unlike its part list ("
                        + part.fencingToken() + ")");
            }
            if (lease.mode(key) != askedModes.get(key)) {
                violations.add("g", "a multi-key lease asked as " + asked + " reports mode " + lease.mode(key)
                        + " for '" + show(key) + "', asked " + askedModes.get(key));
            }
            parts.add(granted(part, client, worker, key, explicitLease, acquireStartNanos,
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
            lease.onLost(event -> sleep(blockingOnLost));
        }
        multis.add(tracked);
        return tracked;
    }

    /**
     * Checks that an open multi-key lease is invalid once a part is: parts are read first, and
     * a part that turned invalid stays so (or (c) reports it), so the handle read after must be
     * invalid too.
     */
    void observeMulti(TrackedMulti multi) {
        if (multi.closeStarted || multi.reported) {
            return;
        }
        TrackedLease invalid = null;
        for (TrackedLease part : multi.parts) {
            observe(part);
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
    List<Boolean> closingMulti(TrackedMulti multi) {
        multi.closeStarted = true;
        List<Boolean> last = new ArrayList<>();
        for (TrackedLease part : multi.parts) {
            observe(part);
            last.add(closing(part));
        }
        return last;
    }

    /** Multi-key leases not closed by their worker. */
    List<TrackedMulti> unclosedMultis() {
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
    private void checkMultiLosses(boolean finalCheck, long now) {
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
                    observe(lease);
                }
            }
            for (int i = 0; i < open.size(); i++) {
                for (int j = i + 1; j < open.size(); j++) {
                    checkPair(open.get(i), open.get(j), "by the sampler");
                }
            }
        }
        for (TrackedMulti multi : multis) {
            observeMulti(multi);
        }
        checkLossesDue(false);
    }

    private void checkPair(TrackedHold first, TrackedHold second, String when) {
        List<TrackedLease> firstOpen = first.open();
        List<TrackedLease> secondOpen = second.open();
        if (first.mode == LockMode.SHARED && second.mode == LockMode.SHARED) {
            return; // shared holds of a key may be valid together
        }
        if (firstOpen.isEmpty() || secondOpen.isEmpty() || exposed(first) || exposed(second)) {
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
        if (!a.isValid() || exposed(first) || exposed(second)) {
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

    /** Whether the test deleted this hold on the server (or may have): then exclusion does not bind it. */
    private boolean exposed(TrackedHold hold) {
        if (hold.exposed) {
            return true;
        }
        for (Forget forget : forgets) {
            long end = forget.endNanos;
            if (forget.touches(hold) && (end == 0 || end - hold.acquireStartNanos > 0)) {
                hold.exposed = true;
                return true;
            }
        }
        return false;
    }

    /** The test is about to delete holds on the server; returns the token to pass to {@link #forgotten}. */
    Object forgetting(String key, PropertyClient client, boolean clientWide) {
        Forget forget = new Forget(key, client, clientWide);
        forgets.add(forget);
        for (TrackedHold hold : holdsByKey.getOrDefault(key, Set.of())) {
            if (!hold.open().isEmpty()) {
                hold.note("server forget of the key at +" + millisSinceStart(System.nanoTime()) + " ms");
            }
        }
        return forget;
    }

    void forgotten(Object forget) {
        ((Forget) forget).endNanos = System.nanoTime();
    }

    // ---- (c) loss ---------------------------------------------------------------------------

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
            lossDue(lease, now, "isValid() turned false at +" + millisSinceStart(now) + " ms while the lease was open");
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
        checkMultiLosses(finalCheck, now);
        for (TrackedLease lease : all) {
            if (lease.reported) {
                continue;
            }
            long due = lease.lossDueNanos;
            if (due != 0 && lease.lost.get() == 0 && (finalCheck || now - due > lostGrace.toNanos())) {
                lease.reported = true;
                violations.add(lease.resurrected ? "c: valid again without a loss" : "c", lease + ": "
                        + lease.lossDueBecause + (lease.resurrected ? ", then reported isValid() == true again" : "")
                        + ", but no onLost came within "
                        + lostGrace.toMillis() + " ms (granted at +" + millisSinceStart(lease.grantedNanos)
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
        for (TrackedLease lease : all) {
            if (!lease.reported && lease.lossDueNanos != 0 && lease.lost.get() == 0) {
                return true;
            }
        }
        for (TrackedMulti multi : multis) {
            if (!multi.reported && multi.lost.get() == 0 && firstLostPart(multi) != null) {
                return true;
            }
        }
        return false;
    }

    /** Every lease not closed by its worker (to check after the clients closed). */
    List<TrackedLease> unclosed() {
        List<TrackedLease> open = new ArrayList<>();
        for (TrackedLease lease : all) {
            if (!lease.closeStarted) {
                open.add(lease);
            }
        }
        return open;
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

    int multiCount() {
        return multis.size();
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

    /** Violations found, grouped by invariant, with the first examples kept. */
    static final class Violations {
        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
        private final ConcurrentLinkedQueue<String> examples = new ConcurrentLinkedQueue<>();
        private final int keep;
        private final Consumer<String> onFirst;

        Violations(int keep, Consumer<String> onFirst) {
            this.keep = keep;
            this.onFirst = Objects.requireNonNull(onFirst);
        }

        void add(String invariant, String message) {
            int count = counts.computeIfAbsent(invariant, k -> new AtomicInteger()).incrementAndGet();
            if (count <= keep) {
                examples.add("(" + invariant + ") " + message);
            }
            if (total() == 1) {
                onFirst.accept("(" + invariant + ") " + message);
            }
        }

        int total() {
            int total = 0;
            for (AtomicInteger count : counts.values()) {
                total += count.get();
            }
            return total;
        }

        Map<String, AtomicInteger> counts() {
            return counts;
        }

        List<String> examples() {
            return List.copyOf(examples);
        }
    }
}
