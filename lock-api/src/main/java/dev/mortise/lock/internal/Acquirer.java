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
import dev.mortise.lock.spi.Permits;

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
    static final long OWNER_SLICE_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(10);

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
    private final dev.mortise.lock.internal.deadlock.DeadlockDetector deadlocks;
    private final WatchedWaits watched;

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
        this.deadlocks = new dev.mortise.lock.internal.deadlock.DeadlockDetector(backend, settings.deadlocks(),
                HolderIds::of);
        this.watched = new WatchedWaits(deadlocks, gates, events);
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
                      LockMode mode, Permits permits, boolean throwOnTimeout) {
        Acquisition acquisition = check(requestedKey, requestedWait, requestedLease, requestedOwner, mode, permits,
                throwOnTimeout, Thread.currentThread());
        if (!acquisition.waitTime().isZero() && Thread.interrupted()) {
            throw messages.interrupted(acquisition.key(), new InterruptedException());
        }
        LockLease nested = nestIfOwned(acquisition.key(), acquisition.ownerThread(), acquisition.ownerId(), mode, 0);
        if (nested != null) {
            return nested;
        }
        return watched.run(acquisition, () -> throughGate(acquisition));
    }

    /** What this client's deadlock detection sees now. */
    dev.mortise.lock.DeadlockReport deadlocks() {
        return deadlocks.report();
    }

    /**
     * The argument checks every acquire passes first, blocking or not: the key, the shared mode,
     * the wait, the lease, the owner, a closed client. Starts the acquisition's clock.
     *
     * @param thread the thread that owns the hold when there is no explicit owner; null for none
     *               (an asynchronous acquisition is its own owner)
     */
    Acquisition check(String requestedKey, Duration requestedWait, Duration requestedLease, String requestedOwner,
                      LockMode mode, Permits permits, boolean throwOnTimeout, Thread thread) {
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
        Thread ownerThread = ownerId == null ? thread : null;
        if (closed) {
            throw messages.closedClient(key);
        }
        long start = System.nanoTime();
        return new Acquisition(key, mode, permits, wait, explicitLease, ownerId, ownerThread, start,
                Deadlines.after(start, wait), throwOnTimeout);
    }

    /** Waits for the key's local gate (nesting in the owner's hold if it is granted meanwhile), then asks. */
    private LockLease throughGate(Acquisition a) {
        String key = a.key();
        KeyGates.Gate gate;
        try {
            while (true) {
                long left = a.waitTime().isZero() ? 0 : Deadlines.left(a.deadline());
                // An explicit owner may already be asking the server for this key on another thread
                // (a parent task and its child): wait in short slices and nest as soon as that hold
                // is granted, instead of queueing behind a hold that only this caller's owner ends.
                long slice = a.ownerId() == null ? left : Math.min(left, OWNER_SLICE_NANOS);
                gate = gates.enter(key, a.mode(), slice);
                if (gate != null || a.ownerId() == null || left <= slice) {
                    break;
                }
                LockLease nested = nestIfOwned(key, null, a.ownerId(), a.mode(), System.nanoTime() - a.start());
                if (nested != null) {
                    return nested;
                }
            }
        } catch (InterruptedException e) {
            throw messages.interrupted(key, e);
        }
        if (gate == null) {
            return notGranted(key, a.mode(), a.waitTime(), a.start(), a.throwOnTimeout(), true);
        }
        return inGate(a, gate);
    }

    /**
     * Asks the server from inside the key's gate and publishes the hold in it; leaves the gate
     * again if nothing is published. A grant that came back after its lease ran out is cleared
     * and asked for again while the wait lasts.
     */
    private LockLease inGate(Acquisition a, KeyGates.Gate gate) {
        String key = a.key();
        boolean published = false;
        KeyGates.Pending pending = null;
        try {
            if (closed) {
                throw messages.clientClosed(key, null);
            }
            Duration lease = a.lease(settings);
            Hold hold;
            do {
                LockRequest request = request(a, lease);
                pending = gate.expect(pending, request.owner());
                Optional<Grant> grant = ask(request, Deadlines.left(a.deadline()));
                if (grant.isEmpty()) {
                    return notGranted(key, a.mode(), a.waitTime(), a.start(), a.throwOnTimeout(), false);
                }
                hold = holdFor(a, gate, grant.get(), lease);
            } while (hold == null);
            KeyGates.EarlyState early = gate.publish(pending, hold);
            published = true;
            return activate(hold, early, gate, pending, key, a.start());
        } catch (RuntimeException e) {
            throw failed(a, e);
        } finally {
            if (!published) {
                gate.leave(a.mode(), pending, null);
            }
        }
    }

    /** The next server request of {@code a}, with a new owner string. */
    LockRequest request(Acquisition a, Duration lease) {
        return new LockRequest(a.key(), nextOwner(), lease, a.renewed(), a.mode(), a.permits());
    }

    /**
     * The hold a server grant makes, or null when the grant came back after its lease ran out and
     * the wait still lasts (it is cleared on the server; the caller asks again).
     *
     * @throws LockException if the grant is too late and the wait is over, or stamped on another ticker
     */
    Hold holdFor(Acquisition a, KeyGates.Gate gate, Grant grant, Duration lease) {
        Hold hold = new Hold(grant, a.mode(), a.ownerThread(), a.ownerId(), lease, a.renewed(), gate,
                validity.deadline(grant, lease), settings.ticker());
        long now = settings.ticker().read();
        if (grant.requestedAtNanos() - now > 0) {
            // Requested after now: the grant was stamped on another clock than this client's
            // (a wrapping backend that does not pass on its inner backend's ticker()).
            actions.clearOnServer(hold);
            throw messages.grantOnAnotherTicker(a.key(), settings.ticker());
        }
        if (!hold.expiredAt(now)) {
            return hold;
        }
        actions.clearOnServer(hold);
        // A late answer is one stalled round trip, not a refusal: while the caller's wait
        // lasts, ask again rather than fail an acquire that still has time.
        if (a.waitTime().isZero() || Deadlines.left(a.deadline()) == 0 || closed) {
            throw messages.grantedTooLate(a.key(), lease, validity.worth(grant, lease));
        }
        return null;
    }

    /**
     * What a failure on the way from the gate to a published hold becomes for the caller: a wait
     * that ran out as it is (already told as TIMEOUT, not also an error), a {@link LockException}
     * as it is and anything else wrapped, both told as ERROR.
     */
    RuntimeException failed(Acquisition a, RuntimeException e) {
        if (e instanceof LockTimeoutException || watched.stoppedHere(e)) {
            return e;
        }
        events.fireError(LockEvent.Operation.ACQUIRE, a.key(), a.mode(), -1, System.nanoTime() - a.start(), e);
        return e instanceof LockException ? e : messages.acquireFailed(a.key(), e);
    }

    /** The failure of an acquire that the client's close stopped. */
    LockException clientClosed(String key, Throwable cause) {
        return messages.clientClosed(key, cause);
    }

    /**
     * What an asynchronous server request's failure becomes before {@link #failed}: the client's
     * close if it closed meanwhile, else the backend's exception itself.
     */
    RuntimeException serverFailure(String key, Throwable cause) {
        if (closed) {
            return messages.clientClosed(key, cause);
        }
        if (cause instanceof RuntimeException failure) {
            return failure;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new java.util.concurrent.CompletionException(cause);
    }

    /** A new owner string for one server request: the client's id and a per-hold counter. */
    String nextOwner() {
        return ownerPrefix + holdSequence.incrementAndGet();
    }

    /** The threads of this client inside a backend acquire (the batch path registers there too). */
    InFlight inFlight() {
        return inFlight;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Turns a granted hold just published in its gate into the caller's lease: ends and clears it
     * instead if the session ended while the grant was on its way back, or the client closed (which
     * may have scanned the keys before the hold was published); otherwise marks it suspended if
     * the session is, arms its expiry, renews it at once if its round trip was slow, and tells
     * ACQUIRED. The one way both the single and the batch acquire hand a hold out.
     */
    Lease activate(Hold hold, KeyGates.EarlyState early, KeyGates.Gate gate, KeyGates.Pending pending,
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
    LockLease nestIfOwned(String key, Thread ownerThread, String ownerId, LockMode mode, long waitedNanos) {
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

    /** @param queued whether the wait ran out in this client's own queue for the key */
    LockLease notGranted(String key, LockMode mode, Duration wait, long start, boolean throwOnTimeout,
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
        deadlocks.close();
    }
}
