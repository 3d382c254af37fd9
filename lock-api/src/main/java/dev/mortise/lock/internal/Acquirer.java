package dev.mortise.lock.internal;

import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one acquire path: argument checks, reentrancy, the key's local gate, the server request,
 * and turning its grant into a published {@link Hold} — or into nothing, with the server
 * cleared, when the grant came too late, its session ended on the way back, or the client
 * closed meanwhile. Thread-safe.
 */
final class Acquirer {

    /** How often a waiting explicit owner looks for a hold of its own owner id to nest in. */
    private static final long OWNER_SLICE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(10);

    private final DefaultLockClient client;
    private final LockBackend backend;
    private final ClientSettings settings;
    private final Arguments arguments;
    private final Validity validity;
    private final KeyGates gates;
    private final HoldActions actions;
    private final Events events;
    private final Messages messages;
    private final InFlight inFlight = new InFlight();
    /** {@code clientId + ":"}: owner ids are this prefix and a per-hold counter. */
    private final String ownerPrefix;
    private final AtomicLong holdSequence = new AtomicLong();
    private final boolean sharedSupported;
    private volatile boolean closed;

    Acquirer(DefaultLockClient client, LockBackend backend, ClientSettings settings, Arguments arguments,
             Validity validity, KeyGates gates, HoldActions actions, Events events, Messages messages,
             String ownerPrefix) {
        this.client = client;
        this.backend = backend;
        this.settings = settings;
        this.arguments = arguments;
        this.validity = validity;
        this.gates = gates;
        this.actions = actions;
        this.events = events;
        this.messages = messages;
        this.ownerPrefix = ownerPrefix;
        this.sharedSupported = backend.supportsSharedMode();
    }

    /**
     * Acquires {@code requestedKey} in {@code mode}.
     *
     * @return the lease, or null if not granted in time and {@code throwOnTimeout} is false
     * @throws LockException          if {@code mode} is shared and the backend does not support it
     * @throws IllegalStateException if the owner holds the key shared and asks for it exclusive
     */
    LockLease attempt(String requestedKey, Duration requestedWait, Duration requestedLease, String requestedOwner,
                      LockMode mode, boolean throwOnTimeout) {
        return attempt(requestedKey, requestedWait, requestedLease, requestedOwner, mode, null, throwOnTimeout);
    }

    /**
     * As {@link #attempt(String, Duration, Duration, String, LockMode, boolean)}, for a semaphore
     * acquisition when {@code permits} is not null: one SHARED hold of the semaphore's key that
     * takes {@code permits.count()} permits (the caller checked that the backend supports permits).
     * Permit holds pass the key's local gate together, as shared holds do, so several threads of
     * one client hold permits at once and the server alone decides who fits.
     *
     * @throws dev.mortise.lock.PermitCountMismatchException if the server keeps another count
     */
    LockLease attempt(String requestedKey, Duration requestedWait, Duration requestedLease, String requestedOwner,
                      LockMode mode, dev.mortise.lock.spi.Permits permits, boolean throwOnTimeout) {
        String key = arguments.key(requestedKey);
        if (mode == LockMode.SHARED && !sharedSupported && permits == null) {
            throw messages.sharedUnsupported(key);
        }
        Duration wait = arguments.waitTime(requestedWait, key);
        Duration explicitLease = arguments.lease(requestedLease, key);
        if (explicitLease != null) {
            Validity.check(explicitLease, backend, settings, "Lease for lock '" + Arguments.abbreviate(key) + "'",
                    "pass a lease");
        }
        String ownerId = arguments.owner(requestedOwner, key);
        Thread ownerThread = ownerId == null ? Thread.currentThread() : null;
        if (closed) {
            throw messages.closedClient(key);
        }
        long start = System.nanoTime();
        if (!wait.isZero() && Thread.interrupted()) {
            throw messages.interrupted(key, new InterruptedException());
        }

        LockLease nested = nestIfOwned(key, ownerThread, ownerId, mode, 0);
        if (nested != null) {
            return nested;
        }

        long deadline = Deadlines.after(start, wait);
        KeyGates.Gate gate;
        try {
            while (true) {
                long left = wait.isZero() ? 0 : Deadlines.left(deadline);
                // An explicit owner may already be asking the server for this key on another thread
                // (a parent task and its child): wait in short slices and nest as soon as that hold
                // is granted, instead of queueing behind a hold that only this caller's owner ends.
                long slice = ownerId == null ? left : Math.min(left, OWNER_SLICE_NANOS);
                gate = gates.enter(key, mode, slice);
                if (gate != null || ownerId == null || left <= slice) {
                    break;
                }
                nested = nestIfOwned(key, null, ownerId, mode, System.nanoTime() - start);
                if (nested != null) {
                    return nested;
                }
            }
        } catch (InterruptedException e) {
            throw messages.interrupted(key, e);
        }
        if (gate == null) {
            return notGranted(key, mode, wait, start, throwOnTimeout, true);
        }
        boolean published = false;
        KeyGates.Pending pending = null;
        try {
            if (closed) {
                throw messages.clientClosed(key, null);
            }
            Duration lease = explicitLease != null ? explicitLease : settings.defaultLease();
            Hold hold;
            while (true) {
                LockRequest request = new LockRequest(key, ownerPrefix + holdSequence.incrementAndGet(), lease,
                        explicitLease == null, mode, permits);
                pending = gate.expect(pending, request.owner());
                Optional<Grant> grant = ask(request, Deadlines.left(deadline));
                if (grant.isEmpty()) {
                    return notGranted(key, mode, wait, start, throwOnTimeout);
                }
                hold = new Hold(grant.get(), mode, ownerThread, ownerId, lease, explicitLease == null, gate,
                        validity.deadline(grant.get(), grant.get().requestedAtNanos(), lease), settings.ticker());
                long now = settings.ticker().read();
                if (grant.get().requestedAtNanos() - now > 0) {
                    // Requested after now: the grant was stamped on another clock than this client's
                    // (a wrapping backend that does not pass on its inner backend's ticker()).
                    actions.clearOnServer(hold);
                    throw messages.grantOnAnotherTicker(key, settings.ticker());
                }
                if (!hold.expiredAt(now)) {
                    break;
                }
                actions.clearOnServer(hold);
                // A late answer is one stalled round trip, not a refusal: while the caller's wait
                // lasts, ask again rather than fail an acquire that still has time.
                if (wait.isZero() || Deadlines.left(deadline) == 0 || closed) {
                    throw messages.grantedTooLate(key, lease, validity.worth(grant.get(), lease));
                }
            }
            KeyGates.EarlyState early = gate.publish(pending, hold);
            published = true;
            return activate(hold, early, gate, pending, key, start);
        } catch (LockTimeoutException e) {
            throw e; // already told as TIMEOUT: a wait that ran out is not also an error
        } catch (LockException e) {
            events.fireError(LockEvent.Operation.ACQUIRE, key, mode, -1, System.nanoTime() - start, e);
            throw e;
        } catch (RuntimeException e) {
            events.fireError(LockEvent.Operation.ACQUIRE, key, mode, -1, System.nanoTime() - start, e);
            throw messages.acquireFailed(key, e);
        } finally {
            if (!published) {
                gate.leave(mode, pending, null);
            }
        }
    }

    /**
     * The multi-key fast path: every part at once, in one {@link LockBackend#tryAcquireAll} request.
     * It applies only when no part is in use in this client (no holder, no waiter, so no hold of the
     * owner to nest in and no one to pass), every argument is valid, and there are at least two
     * parts; then the local gates are taken without waiting and the backend asked once. A granted
     * batch becomes one hold per part exactly as {@link #attempt} makes it (validity from each grant's
     * request time, the late-grant rule, publish, expiry, watchdog, one ACQUIRED event per part).
     *
     * <p>Null means "take the parts one by one": the fast path did not apply, the backend has no
     * native batch, a part was busy, or (with a wait) the grants came back too late; nothing of this
     * call is then held, locally or on the server, and the caller goes on with what is left of its wait.
     *
     * @param keys  the keys in canonical order, distinct; {@code modes} the mode of each
     * @return the leases in the order of {@code keys}, or null (see above)
     * @throws LockException if the backend failed or the client closed (nothing is held)
     */
    java.util.List<LockLease> attemptAll(java.util.List<String> keys, java.util.List<LockMode> modes,
                                         Duration requestedWait, Duration requestedLease, String requestedOwner) {
        int n = keys.size();
        if (n < 2 || closed) {
            return null;
        }
        Duration wait;
        Duration explicitLease;
        String ownerId;
        try {
            for (int i = 0; i < n; i++) {
                if (!arguments.key(keys.get(i)).equals(keys.get(i))
                        || modes.get(i) == LockMode.SHARED && !sharedSupported) {
                    return null;
                }
            }
            wait = arguments.waitTime(requestedWait, keys.get(0));
            explicitLease = arguments.lease(requestedLease, keys.get(0));
            if (explicitLease != null) {
                Validity.check(explicitLease, backend, settings, "Lease", "pass a lease");
            }
            ownerId = arguments.owner(requestedOwner, keys.get(0));
        } catch (RuntimeException invalid) {
            return null; // the ordered path refuses it with the message a single acquire gives
        }
        if (!wait.isZero() && Thread.currentThread().isInterrupted()) {
            return null;
        }
        Thread ownerThread = ownerId == null ? Thread.currentThread() : null;
        long start = System.nanoTime();
        KeyGates.Gate[] gate = new KeyGates.Gate[n];
        KeyGates.Pending[] pending = new KeyGates.Pending[n];
        Hold[] hold = new Hold[n];
        java.util.List<LockLease> leases = new java.util.ArrayList<>(n);
        int entered = 0;
        int published = 0; // holds [0, published) are published: leased, or lost here and cleared
        try {
            for (; entered < n; entered++) {
                gate[entered] = gates.enterIdle(keys.get(entered), modes.get(entered));
                if (gate[entered] == null) {
                    return null;
                }
            }
            Duration lease = explicitLease != null ? explicitLease : settings.defaultLease();
            java.util.List<LockRequest> requests = new java.util.ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                LockRequest request = new LockRequest(keys.get(i), ownerPrefix + holdSequence.incrementAndGet(), lease,
                        explicitLease == null, modes.get(i));
                pending[i] = gate[i].expect(null, request.owner());
                requests.add(request);
            }
            java.util.List<Grant> grants = askAll(requests);
            if (grants == null || grants.isEmpty()) {
                return null;
            }
            long now = settings.ticker().read();
            int late = -1;
            int foreign = -1;
            for (int i = 0; i < n; i++) {
                Grant grant = grants.get(i);
                hold[i] = new Hold(grant, modes.get(i), ownerThread, ownerId, lease, explicitLease == null, gate[i],
                        validity.deadline(grant, grant.requestedAtNanos(), lease), settings.ticker());
                if (foreign < 0 && grant.requestedAtNanos() - now > 0) {
                    foreign = i;
                }
                if (late < 0 && hold[i].expiredAt(now)) {
                    late = i;
                }
            }
            if (foreign >= 0) {
                // Stamped on another clock than this client's: the finally clears every grant.
                throw messages.grantOnAnotherTicker(keys.get(foreign), settings.ticker());
            }
            if (late >= 0) {
                // One stalled round trip: the finally clears every grant; with a wait left the ordered
                // path asks again, as a single acquire would.
                if (wait.isZero() || closed) {
                    throw messages.grantedTooLate(keys.get(late), lease, validity.worth(grants.get(late), lease));
                }
                return null;
            }
            for (int i = 0; i < n; i++) {
                KeyGates.EarlyState early = gate[i].publish(pending[i], hold[i]);
                published = i + 1;
                leases.add(activate(hold[i], early, gate[i], pending[i], keys.get(i), start));
            }
            return leases;
        } catch (LockException e) {
            events.fireError(LockEvent.Operation.ACQUIRE, keys.get(0), modes.get(0), -1, System.nanoTime() - start, e);
            throw e;
        } catch (RuntimeException e) {
            events.fireError(LockEvent.Operation.ACQUIRE, keys.get(0), modes.get(0), -1, System.nanoTime() - start, e);
            throw messages.acquireAllFailed(keys, e);
        } finally {
            if (leases.size() < n) {
                giveBack(leases, hold, gate, pending, modes, entered, published);
            }
        }
    }

    /** Undoes a fast path that ends without its leases: each part as far as it got. */
    private void giveBack(java.util.List<LockLease> leases, Hold[] hold, KeyGates.Gate[] gate,
                          KeyGates.Pending[] pending, java.util.List<LockMode> modes, int entered, int published) {
        // Published parts before the one that failed are ordinary leases: closed as the ordered path
        // closes the parts it took. A release the server did not get leaves that hold to its lease.
        LeaseGroup.closeAll(leases, Duration.ZERO);
        for (int i = published; i < entered; i++) {
            if (hold[i] != null) {
                actions.clearOnServer(hold[i]);
            }
            gate[i].leave(modes.get(i), pending[i], null);
        }
    }

    /**
     * One batch request, stopped by {@link #close()} if it is still under way.
     *
     * @return the grants, empty if a key was busy, or null for "no native batch"
     * @throws IllegalStateException if the backend answered with grants that do not match the requests
     */
    private java.util.List<Grant> askAll(java.util.List<LockRequest> requests) {
        String first = requests.get(0).key();
        if (!inFlight.enter()) {
            throw messages.clientClosed(first, null);
        }
        java.util.List<Grant> grants;
        try {
            grants = backend.tryAcquireAll(requests);
        } catch (RuntimeException e) {
            if (closed) {
                throw messages.clientClosed(first, e);
            }
            throw e;
        } finally {
            inFlight.exit();
        }
        if (grants != null && !grants.isEmpty() && !matches(grants, requests)) {
            for (Grant grant : grants) {
                try {
                    backend.release(grant);
                } catch (RuntimeException ignored) {
                    // it expires with its lease; the broken answer is what gets reported
                }
            }
            throw new IllegalStateException("backend '" + backend.name() + "' (" + backend.getClass().getName()
                    + ") answered tryAcquireAll with " + grants + " for " + requests.size() + " requests: it must "
                    + "return one grant per request, in request order, or an empty list, or null");
        }
        return grants;
    }

    private static boolean matches(java.util.List<Grant> grants, java.util.List<LockRequest> requests) {
        if (grants.size() != requests.size()) {
            return false;
        }
        for (int i = 0; i < grants.size(); i++) {
            Grant grant = grants.get(i);
            if (grant == null || !grant.key().equals(requests.get(i).key())
                    || !grant.owner().equals(requests.get(i).owner())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Turns a granted hold just published in its gate into the caller's lease: ends and clears it
     * instead if the session ended while the grant was on its way back, or the client closed (which
     * may have scanned the keys before the hold was published); otherwise marks it suspended if
     * the session is, arms its expiry, renews it at once if its round trip was slow, and tells
     * ACQUIRED. The one way both the single and the batch acquire hand a hold out.
     */
    private Lease activate(Hold hold, KeyGates.EarlyState early, KeyGates.Gate gate, KeyGates.Pending pending,
                           String key, long start) {
        if (early == KeyGates.EarlyState.LOST) {
            Throwable cause = KeyGates.earlyLostCause(gate, pending);
            actions.loseHere(hold, LostReason.SESSION_LOST, cause, false);
            actions.clearOnServer(hold);
            throw messages.sessionEndedBeforeGrant(key, cause);
        }
        if (early == KeyGates.EarlyState.SUSPENDED) {
            hold.suspended(true);
        }
        if (closed) {
            actions.loseHere(hold, LostReason.CLIENT_CLOSED, null, false);
            actions.clearOnServer(hold);
            throw messages.clientClosed(key, null);
        }
        actions.expiry().arm(hold);
        actions.renewWhenDue(hold);
        events.fire(LockEvent.Type.ACQUIRED, key, hold.mode, hold.grant.fencingToken(), System.nanoTime() - start, null);
        return new Lease(client, hold);
    }

    /**
     * A nested lease on this client's current hold of {@code key} if the owner holds it validly,
     * else null. A shared request nests in the owner's exclusive hold too (the key stays exclusive
     * until every lease on that hold closes); an exclusive request in the owner's shared hold is
     * an upgrade, refused.
     */
    private LockLease nestIfOwned(String key, Thread ownerThread, String ownerId, LockMode mode, long waitedNanos) {
        KeyGates.Gate current = gates.get(key);
        Hold held = current == null ? null : current.holdOf(ownerThread, ownerId);
        if (held == null) {
            return null;
        }
        if (mode == LockMode.EXCLUSIVE && held.mode == LockMode.SHARED && held.isActive()) {
            throw messages.upgradeRefused(key, held.ownerDescription());
        }
        if (held.enter()) {
            events.fire(LockEvent.Type.ACQUIRED, key, held.mode, held.grant.fencingToken(), waitedNanos, null);
            return new Lease(client, held);
        }
        return null;
    }

    /** One server request, stopped by {@link #close()} if it is still under way. */
    private Optional<Grant> ask(LockRequest request, long leftNanos) {
        if (!inFlight.enter()) {
            throw messages.clientClosed(request.key(), null);
        }
        try {
            return leftNanos == 0 ? backend.tryAcquire(request).grant()
                    : backend.acquire(request, Duration.ofNanos(leftNanos));
        } catch (InterruptedException e) {
            if (closed) {
                throw messages.clientClosed(request.key(), e);
            }
            throw messages.interrupted(request.key(), e);
        } catch (RuntimeException e) {
            if (closed) {
                throw messages.clientClosed(request.key(), e);
            }
            throw e;
        } finally {
            inFlight.exit();
        }
    }

    private LockLease notGranted(String key, LockMode mode, Duration wait, long start, boolean throwOnTimeout) {
        return notGranted(key, mode, wait, start, throwOnTimeout, false);
    }

    /** @param queued whether the wait ran out in this client's own queue for the key */
    private LockLease notGranted(String key, LockMode mode, Duration wait, long start, boolean throwOnTimeout,
                                 boolean queued) {
        events.fire(wait.isZero() ? LockEvent.Type.BUSY : LockEvent.Type.TIMEOUT, key, mode, -1,
                System.nanoTime() - start, null);
        if (closed) {
            throw messages.clientClosed(key, null);
        }
        if (!throwOnTimeout) {
            return null;
        }
        throw queued ? messages.queuedTimeout(key, wait) : messages.timeout(key, wait);
    }

    /** Refuses new acquires and stops those under way; their grants, if any, are released, never returned. */
    void close() {
        closed = true;
        inFlight.closeAll();
    }
}
