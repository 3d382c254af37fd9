package dev.mortise.lock.internal;

import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.Ticker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One server-side hold of a client and the leases open on it: the state machine of a hold's
 * life. Thread-safe; every transition happens under the hold's monitor, and listeners and
 * server calls happen outside it (the caller performs what a transition returns).
 *
 * <pre>
 *   ACTIVE ──last lease closed──▶ RELEASING ──server confirmed / release failed──▶ RELEASED
 *     │                              │
 *     └──expired, refused, session ──┴──server no longer had it──────────────────▶ LOST
 *        gone, forced, client closed
 * </pre>
 *
 * <p>RELEASED and LOST are final. Entering either leaves the key's local gate, and only that
 * does: {@link #leaveGateOnce} is the one place the permit is given back, so it is given back
 * exactly once whatever races (a close, a loss, {@code forceRelease}, the client closing).
 * The server-side release is likewise taken once ({@link #takeServerRelease}).
 *
 * <p>Validity: {@link #validUntilNanos} is set only from a confirmed request
 * ({@link #confirmed}) and lowered, never raised, by a request whose outcome is unknown
 * ({@link #unconfirmed}). Requests that change the server's lease (watchdog renewals and
 * {@code extend}) are serialised per hold ({@link #tryBeginRequest}, {@link #beginRequest}),
 * so the last confirmation is also the last request the server applied.
 */
final class Hold {

    enum State { ACTIVE, RELEASING, RELEASED, LOST }

    /** {@link #endAt} value of a hold that lasts as long as it is renewed or its lease runs. */
    static final long NO_END = Long.MIN_VALUE;

    /** What closing a lease asks the caller to do. */
    enum Closing { NOTHING, RELEASE, CLEAR_STALE }

    final Grant grant;
    /** The mode the server granted: shared holds of a key coexist, an exclusive one excludes all. */
    final LockMode mode;
    /** The owning thread, or null for an explicit owner id. */
    private final Thread ownerThread;
    /** The explicit owner id, or null for a thread owner. */
    private final String ownerId;
    final boolean renewed;
    final KeyGates.Gate gate;
    private final long acquiredAtMillis = System.currentTimeMillis();
    /** The clock of this hold's lifetime (the client's and its backend's). */
    final Ticker ticker;

    /** The lease this hold asks the server for: the request's, or the last one {@code extend} got applied. */
    private volatile Duration lease;
    /** The lease the server put in force with the last confirmation (the grant's, then each renewal's answer). */
    private volatile Duration applied;
    private volatile long validUntilNanos;
    private volatile long confirmedStartNanos; // start of the last request the server confirmed
    /** When an extend shorter than the backend honours ends this hold ({@link #NO_END}: it does not). */
    private volatile long endAtNanos = NO_END;
    private volatile boolean suspended;
    private volatile Throwable renewalFailure; // since the last confirmation: the cause of an expiry
    private volatile State state = State.ACTIVE;
    private volatile String holderId;

    private int openLeases = 1;
    private boolean gateLeft;
    private boolean serverReleaseTaken;
    private final RequestSlot request = new RequestSlot(); // guarded by this
    private LockLostEvent lostEvent;
    private List<Consumer<LockLostEvent>> lostListeners; // created with the first listener

    Hold(Grant grant, LockMode mode, Thread ownerThread, String ownerId, Duration lease, boolean renewed,
         KeyGates.Gate gate, long validUntilNanos, Ticker ticker) {
        this.grant = grant;
        this.ticker = ticker;
        this.mode = mode;
        this.ownerThread = ownerThread;
        this.ownerId = ownerId;
        this.lease = lease;
        this.applied = Validity.applied(grant, lease);
        this.renewed = renewed;
        this.gate = gate;
        this.validUntilNanos = validUntilNanos;
        this.confirmedStartNanos = grant.requestedAtNanos();
    }

    String key() {
        return grant.key();
    }

    /** When the hold's first request was sent, on {@link #ticker} (the grant's stamp; not a field: one long less per hold). */
    long acquiredNanos() {
        return grant.requestedAtNanos();
    }

    /** The opaque id of this hold ({@link HolderIds}), computed once on first use. */
    String holderId() {
        String id = holderId;
        if (id == null) {
            id = HolderIds.of(grant.owner());
            holderId = id; // racing threads compute the same string
        }
        return id;
    }

    Duration lease() {
        return lease;
    }

    /**
     * The lease the server put in force with the last confirmation. Until its answer comes, a new
     * request is counted on for no more than this (nor than it asks): a server that keeps a lease
     * of its own keeps it for the next request too.
     */
    Duration applied() {
        return applied;
    }

    /** True if a request by {@code thread} (for a thread owner) or with {@code id} nests in this hold. */
    boolean ownedBy(Thread thread, String id) {
        return id == null ? ownerThread == thread : id.equals(ownerId);
    }

    String ownerDescription() {
        if (ownerThread != null) {
            return "thread " + ownerThread.getName();
        }
        return ownerId != null ? "owner " + ownerId : "an asynchronous acquire";
    }

    Instant acquiredAt() {
        return Instant.ofEpochMilli(acquiredAtMillis);
    }

    // ---- leases -------------------------------------------------------------------------

    /** Adds a nested lease; false unless the hold is active, open and valid now. */
    synchronized boolean enter() {
        if (state != State.ACTIVE || openLeases == 0 || !isValidNow()) {
            return false;
        }
        openLeases++;
        return true;
    }

    /** Removes a lease and says what the caller must do: release the hold, clear a stale one, or nothing. */
    synchronized Closing closeLease() {
        openLeases--;
        if (openLeases > 0) {
            return Closing.NOTHING;
        }
        if (state == State.ACTIVE) {
            state = State.RELEASING;
            return Closing.RELEASE;
        }
        return state == State.LOST && !serverReleaseTaken ? Closing.CLEAR_STALE : Closing.NOTHING;
    }

    // ---- ending -------------------------------------------------------------------------

    /** RELEASING → RELEASED once the server release was sent (confirmed, or failed: the lease ends it). */
    void released() {
        synchronized (this) {
            if (state != State.RELEASING) {
                return;
            }
            state = State.RELEASED;
        }
        leaveGateOnce();
    }

    /**
     * ACTIVE → LOST: expired, refused at renewal, session gone, forced, client closed. A hold
     * being released is not lost by anyone but its releaser ({@link #releaseRefused}).
     *
     * @return the listeners to tell, or {@code null} if the hold was not active
     */
    List<Consumer<LockLostEvent>> lose(LockLostEvent event) {
        return toLost(event, State.ACTIVE);
    }

    /** RELEASING → LOST: the server no longer had the hold when the last lease released it. */
    List<Consumer<LockLostEvent>> releaseRefused(LockLostEvent event) {
        return toLost(event, State.RELEASING);
    }

    private List<Consumer<LockLostEvent>> toLost(LockLostEvent event, State from) {
        List<Consumer<LockLostEvent>> toCall;
        CompletableFuture<Void> waking;
        synchronized (this) {
            if (state != from) {
                return null;
            }
            state = State.LOST;
            lostEvent = event;
            toCall = lostListeners == null ? List.of() : lostListeners;
            lostListeners = null;
            waking = request.wakeAll();
        }
        RequestSlot.wake(waking); // an extend waiting for the watchdog's request gives up
        leaveGateOnce();
        return toCall;
    }

    /** The one place the key's local permit is given back; a no-op after the first call. */
    private void leaveGateOnce() {
        synchronized (this) {
            if (gateLeft) {
                return;
            }
            gateLeft = true;
        }
        gate.leave(mode, null, this);
    }

    /** True the first time: the caller sends the one release this hold gets on the server. */
    synchronized boolean takeServerRelease() {
        if (serverReleaseTaken) {
            return false;
        }
        serverReleaseTaken = true;
        return true;
    }

    // ---- loss listeners -----------------------------------------------------------------

    /** Adds a listener; returns the loss event instead if the hold is already lost. */
    synchronized LockLostEvent addLostListener(Consumer<LockLostEvent> listener) {
        if (lostEvent != null) {
            return lostEvent;
        }
        if (state == State.ACTIVE || state == State.RELEASING) {
            if (lostListeners == null) {
                lostListeners = new ArrayList<>(2);
            }
            lostListeners.add(listener);
        }
        return null;
    }

    synchronized LockLostEvent lostEvent() {
        return lostEvent;
    }

    boolean isActive() {
        return state == State.ACTIVE;
    }

    State state() {
        return state;
    }

    synchronized int openLeases() {
        return openLeases;
    }

    // ---- requests that move validity -----------------------------------------------------

    /** For the watchdog: claims the hold for one renewal, or false if it is busy or no longer active. */
    synchronized boolean tryBeginRequest() {
        return state == State.ACTIVE && request.tryTake();
    }

    /** For {@code extend}: waits (outside the monitor) for a renewal in flight, then claims the hold; false if it ended. */
    boolean beginRequest() throws InterruptedException {
        while (true) {
            CompletableFuture<Void> busy;
            synchronized (this) {
                if (state != State.ACTIVE) {
                    return false;
                }
                if (request.tryTake()) {
                    return true;
                }
                busy = request.whenFreed();
            }
            RequestSlot.await(busy);
        }
    }

    void endRequest() {
        CompletableFuture<Void> waking;
        synchronized (this) {
            waking = request.free();
        }
        RequestSlot.wake(waking);
    }

    /** What a confirmation did to the hold. */
    enum Confirmation { APPLIED, APPLIED_EARLIER, TOO_LATE, ENDED }

    /**
     * The server confirmed a request: validity is what that confirmation is worth, earlier or
     * later than before, {@code newLease} becomes the lease later renewals ask for and
     * {@code newApplied} the lease the server put in force ({@link #applied}) — unless
     * the deadline had already passed when the answer arrived: a lease that stopped being valid
     * never becomes valid again ({@link Confirmation#TOO_LATE}: the caller loses it as expired).
     *
     * @return {@link Confirmation#APPLIED_EARLIER} if the deadline moved earlier (the expiry timer must be told)
     */
    synchronized Confirmation confirmed(long startNanos, long deadline, Duration newLease, Duration newApplied) {
        if (state != State.ACTIVE) {
            return Confirmation.ENDED;
        }
        if (ticker.read() - validUntilNanos >= 0) {
            return Confirmation.TOO_LATE;
        }
        if (endAtNanos != NO_END && endAtNanos - deadline < 0) {
            deadline = endAtNanos; // a shortened hold is worth no more than its end, whatever the server keeps
        }
        boolean earlier = deadline - validUntilNanos < 0;
        confirmedStartNanos = startNanos;
        validUntilNanos = deadline;
        renewalFailure = null;
        lease = newLease;
        applied = newApplied;
        return earlier ? Confirmation.APPLIED_EARLIER : Confirmation.APPLIED;
    }

    /**
     * A request is about to be sent (and may never be answered): the server may apply it as
     * soon as it arrives, so the deadline becomes the earlier of the current one and what the
     * request would set. Only a confirmation raises it again.
     *
     * @return true if the deadline moved earlier (the expiry timer must be told)
     */
    synchronized boolean unconfirmed(long deadlineIfApplied) {
        if (state != State.ACTIVE || deadlineIfApplied - validUntilNanos >= 0) {
            return false;
        }
        validUntilNanos = deadlineIfApplied;
        return true;
    }

    /**
     * Sets when the hold ends ({@link #NO_END}: it no longer ends early), before the confirmation
     * of the extend that asked for it is applied. The watchdog leaves an ending hold alone.
     */
    synchronized void endAt(long nanos) {
        endAtNanos = nanos;
    }

    /** Whether an extend shorter than the backend honours set this hold to end ({@link #endAt}). */
    boolean ending() {
        return endAtNanos != NO_END;
    }

    void renewalFailed(Throwable failure) {
        renewalFailure = failure;
    }

    Throwable renewalFailure() {
        return renewalFailure;
    }

    // ---- expiry -------------------------------------------------------------------------

    long confirmedStartNanos() {
        return confirmedStartNanos;
    }

    long validUntilNanos() {
        return validUntilNanos;
    }

    boolean isValidNow() {
        return !suspended && ticker.read() - validUntilNanos < 0 && state == State.ACTIVE;
    }

    boolean expiredAt(long nanoTime) {
        return nanoTime - validUntilNanos >= 0;
    }

    void suspended(boolean value) {
        suspended = value;
    }

    Duration remaining() {
        if (!isValidNow()) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, validUntilNanos - ticker.read()));
    }
}
