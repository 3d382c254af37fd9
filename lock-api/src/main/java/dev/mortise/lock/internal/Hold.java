package dev.mortise.lock.internal;

import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.spi.Grant;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

/**
 * One server-side hold of a client and the leases open on it. Thread-safe: state changes
 * happen under the hold's monitor; listeners are called outside it.
 *
 * <p>Life: ACTIVE → RELEASED (the last lease closed) or ACTIVE → LOST (expired, renewal
 * refused, session gone). Only the first transition counts.
 */
final class Hold {

    enum State { ACTIVE, LOST, RELEASED }

    final Grant grant;
    /** The owning thread, or null for an explicit owner id. */
    private final Thread ownerThread;
    /** The explicit owner id, or null for a thread owner. */
    private final String ownerId;
    final Duration lease;
    final boolean renewed;
    final KeyGates.Gate gate;
    /** Wall-clock grant time, for display only (kept as millis: no Instant per hold). */
    private final long acquiredAtMillis = System.currentTimeMillis();
    final long acquiredNanos;

    private volatile long validUntilNanos;
    private volatile boolean suspended;

    private State state = State.ACTIVE;
    private int openLeases = 1;
    private boolean localReleased;
    private boolean serverReleaseTaken;
    private LockLostEvent lostEvent;
    private List<Consumer<LockLostEvent>> lostListeners; // created with the first listener
    private ScheduledFuture<?> expiryCheck;

    Hold(Grant grant, Thread ownerThread, String ownerId, Duration lease, boolean renewed, KeyGates.Gate gate,
         long validUntilNanos) {
        this.grant = grant;
        this.ownerThread = ownerThread;
        this.ownerId = ownerId;
        this.lease = lease;
        this.renewed = renewed;
        this.gate = gate;
        this.acquiredNanos = grant.requestedAtNanos();
        this.validUntilNanos = validUntilNanos;
    }

    String key() {
        return grant.key();
    }

    /** True if a request by {@code thread} (for a thread owner) or with {@code id} nests in this hold. */
    boolean ownedBy(Thread thread, String id) {
        return id == null ? ownerThread == thread : id.equals(ownerId);
    }

    String ownerDescription() {
        return ownerThread != null ? "thread " + ownerThread.getName() : "owner " + ownerId;
    }

    Instant acquiredAt() {
        return Instant.ofEpochMilli(acquiredAtMillis);
    }

    /** Adds a nested lease; false if the hold is no longer active or already fully closed. */
    synchronized boolean enter() {
        if (state != State.ACTIVE || openLeases == 0 || System.nanoTime() - validUntilNanos >= 0) {
            return false;
        }
        openLeases++;
        return true;
    }

    /**
     * Removes a lease.
     *
     * @return true if it was the last one and the hold was still active: the caller releases it
     */
    synchronized boolean leave() {
        openLeases--;
        if (openLeases == 0 && state == State.ACTIVE) {
            state = State.RELEASED;
            cancelExpiryCheck();
            return true;
        }
        return false;
    }

    /** True the first time: the caller sends the one release this hold gets on the server. */
    synchronized boolean takeServerRelease() {
        if (serverReleaseTaken) {
            return false;
        }
        serverReleaseTaken = true;
        return true;
    }

    /** After a release the server refused: turn RELEASED back into ACTIVE so it can be marked lost. */
    synchronized void reopenForLoss() {
        if (state == State.RELEASED) {
            state = State.ACTIVE;
        }
    }

    /** True the first time: the caller then frees the local gate and the registry entry. */
    synchronized boolean takeLocalRelease() {
        if (localReleased || (state == State.ACTIVE)) {
            return false;
        }
        localReleased = true;
        return true;
    }

    /**
     * Marks the hold lost if it is active.
     *
     * @return the listeners to call with the event, or {@code null} if it was not active
     */
    synchronized List<Consumer<LockLostEvent>> lose(LockLostEvent event) {
        if (state != State.ACTIVE) {
            return null;
        }
        state = State.LOST;
        lostEvent = event;
        cancelExpiryCheck();
        List<Consumer<LockLostEvent>> toCall = lostListeners == null ? List.of() : lostListeners;
        lostListeners = null;
        return toCall;
    }

    /** Adds a listener; returns the loss event instead if the hold is already lost. */
    synchronized LockLostEvent addLostListener(Consumer<LockLostEvent> listener) {
        if (lostEvent != null) {
            return lostEvent;
        }
        if (state == State.ACTIVE) {
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

    synchronized boolean isActive() {
        return state == State.ACTIVE;
    }

    synchronized int openLeases() {
        return openLeases;
    }

    synchronized void expiryCheck(ScheduledFuture<?> check) {
        cancelExpiryCheck();
        if (state == State.ACTIVE) {
            expiryCheck = check;
        } else {
            check.cancel(false);
        }
    }

    private void cancelExpiryCheck() {
        if (expiryCheck != null) {
            expiryCheck.cancel(false);
            expiryCheck = null;
        }
    }

    long validUntilNanos() {
        return validUntilNanos;
    }

    /** Moves the validity deadline forward after a renewal; never backwards. */
    void extendValidity(long until) {
        synchronized (this) {
            if (until - validUntilNanos > 0) {
                validUntilNanos = until;
            }
        }
    }

    /** Sets the validity deadline after an explicit extension (which may also shorten it). */
    synchronized void resetValidity(long until) {
        if (state == State.ACTIVE) {
            validUntilNanos = until;
        }
    }

    boolean isValidNow() {
        return !suspended && System.nanoTime() - validUntilNanos < 0 && isActive();
    }

    boolean expiredAt(long nanoTime) {
        return nanoTime - validUntilNanos >= 0;
    }

    void suspended(boolean value) {
        suspended = value;
    }

    boolean isSuspended() {
        return suspended;
    }

    Duration remaining() {
        if (!isValidNow()) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, validUntilNanos - System.nanoTime()));
    }

    LostReason lostReason() {
        LockLostEvent event = lostEvent();
        return event == null ? null : event.reason();
    }
}
