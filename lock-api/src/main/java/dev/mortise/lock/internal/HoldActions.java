package dev.mortise.lock.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.Ticker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What happens to a hold after it is granted, with the server calls and notifications each
 * {@link Hold} transition asks for: closing a lease, {@code extend}, losing it, forcing it
 * out, clearing a stale entry on the server. Thread-safe; callers may be user threads, the
 * watchdog, the expiry timer or the backend's event threads. Listeners are always told on the
 * {@link Notifier}; server clean-up after a background loss runs on the watchdog thread.
 */
final class HoldActions {

    private static final Logger log = LoggerFactory.getLogger(HoldActions.class);

    private final LockBackend backend;
    private final String backendName;
    private final ClientSettings settings;
    private final Validity validity;
    private final Events events;
    private final Notifier notifier;
    private final Messages messages;
    private final ExpiryTimer expiry;
    /** The clock of lease time (the backend's). */
    private final Ticker ticker;
    private volatile Renewer renewer;
    /** The release call, made once: {@code backend::release} would be a new object per release. */
    private final java.util.function.Predicate<dev.mortise.lock.spi.Grant> releaseCall;

    HoldActions(LockBackend backend, ClientSettings settings, Validity validity, Events events, Notifier notifier,
                Messages messages, KeyGates gates) {
        this.backend = backend;
        this.backendName = backend.name();
        this.settings = settings;
        this.validity = validity;
        this.events = events;
        this.notifier = notifier;
        this.messages = messages;
        this.ticker = settings.ticker();
        this.releaseCall = backend::release;
        this.expiry = new ExpiryTimer(backendName, ticker, gates,
                hold -> loseInBackground(hold, LostReason.EXPIRED, hold.renewalFailure()));
    }

    void start(Renewer renewer) {
        this.renewer = renewer;
    }

    ExpiryTimer expiry() {
        return expiry;
    }

    /**
     * Closes one lease of {@code hold}; the last one releases it on the server, or, with a
     * positive {@code linger}, leaves it there to expire {@code linger} from now.
     */
    void leave(Hold hold, Duration linger) {
        finishLeave(hold, beginLeave(hold), linger);
    }

    /**
     * The local half of {@link #leave}: the lease is closed at this instant (the hold lost if its
     * validity already ran out, else RELEASING if this was its last lease), and what the server must
     * do is returned for {@link #finishLeave}. A RELEASING hold is no longer lost by its deadline
     * passing, so a group of leases closes every part locally first, then releases them one by one.
     */
    Hold.Closing beginLeave(Hold hold) {
        checkExpiry(hold);
        return hold.closeLease();
    }

    /** The server half of {@link #leave}: releases, lingers or clears as {@code closing} says, then reports a loss. */
    void finishLeave(Hold hold, Hold.Closing closing, Duration linger) {
        LockBackendException releaseFailure = null;
        switch (closing) {
            case RELEASE -> releaseFailure = linger.isNegative() || linger.isZero() ? release(hold)
                    : linger(hold, linger);
            case CLEAR_STALE -> clearOnServer(hold);
            case NOTHING -> { }
        }
        LockLostEvent lost = hold.lostEvent();
        if (lost != null) {
            LockLostException e = messages.lost(hold.key(), hold.grant.fencingToken(), lost);
            if (releaseFailure != null) {
                e.addSuppressed(releaseFailure);
            }
            throw e;
        }
        if (releaseFailure != null) {
            throw releaseFailure;
        }
    }

    private LockBackendException release(Hold hold) {
        return end(hold, releaseCall);
    }

    /** Sets the server lease of a hold being released to {@code linger} instead of deleting it. */
    private LockBackendException linger(Hold hold, Duration linger) {
        return end(hold, grant -> backend.linger(grant, linger));
    }

    /**
     * Ends a RELEASING hold with one server call ({@code release} or {@code linger}): RELEASED if
     * the server confirmed or could not be reached (the lease ends it then), LOST if the server
     * no longer had it while the hold was still valid.
     *
     * @return the failure to report, or null
     */
    private LockBackendException end(Hold hold, java.util.function.Predicate<dev.mortise.lock.spi.Grant> serverCall) {
        if (!hold.takeServerRelease()) {
            hold.released();
            return null;
        }
        try {
            // An answer "not there" that came after the hold's validity ran out is no evidence of a loss:
            // the owner let go while it was valid, and the server may have ended the lease since (a
            // release that took its time, another part of a group released first). Before that
            // instant the server must still have had it: then it was lost while the work ran.
            if (serverCall.test(hold.grant) || hold.expiredAt(ticker.read())) {
                hold.released();
                events.fire(LockEvent.Type.RELEASED, hold.key(), hold.mode, hold.grant.fencingToken(),
                        ticker.read() - hold.acquiredNanos(), null);
            } else {
                announce(hold, hold.releaseRefused(event(hold, LostReason.MISSING_AT_RELEASE, null)), true);
            }
            return null;
        } catch (RuntimeException e) {
            hold.released();
            events.fireError(LockEvent.Operation.RELEASE, hold.key(), hold.mode, hold.grant.fencingToken(), 0, e);
            return messages.releaseFailed(hold.key(), hold.lease(), e);
        }
    }

    /**
     * Sets the hold's lease on the server and locally, from what the server confirmed and applied.
     * A positive lease shorter than this client can ask of the backend ({@link Validity#shortestAccepted})
     * ends the hold that long from now instead: the server is asked for the shortest lease it
     * honours, the client stops renewing the hold, counts it valid until then and clears it on the
     * server when that instant passes, as for any lease left to run out. Shortening never makes a
     * hold last longer than asked, so it needs no floor.
     */
    void extend(Hold hold, Duration lease) {
        Duration shortest = lease == null || lease.isNegative() || lease.isZero() ? null
                : Validity.shortestAccepted(backend, settings);
        if (shortest != null && lease.compareTo(shortest) < 0) {
            long endAt = ticker.read() + lease.toNanos();
            extendOnServer(hold, shortest, endAt);
            return;
        }
        extendOnServer(hold, lease, Hold.NO_END);
    }

    /** {@link #extend}'s server request with {@code lease}; {@code endAt}: when the hold ends, or {@link Hold#NO_END}. */
    private void extendOnServer(Hold hold, Duration lease, long endAt) {
        Validity.check(lease, backend, settings, "Lease for lock '" + Arguments.abbreviate(hold.key()) + "'",
                "pass a lease");
        checkExpiry(hold);
        try {
            if (!hold.beginRequest()) {
                throw invalidLease(hold);
            }
        } catch (InterruptedException e) {
            throw messages.interrupted(hold.key(), e);
        }
        long start = ticker.read();
        try {
            // The server may apply a shorter lease the moment it receives the request, long before
            // the answer arrives (or if it never does): count on no more than that from now on.
            if (hold.unconfirmed(validity.deadline(start, lease, hold.applied()))) {
                expiry.arm(hold);
            }
            Optional<Duration> renewed;
            try {
                renewed = backend.renew(hold.grant, lease);
            } catch (RuntimeException e) {
                throw e instanceof LockException le ? le : messages.extendFailed(hold.key(), e);
            }
            if (renewed == null || renewed.isEmpty()) {
                loseHere(hold, LostReason.RENEWAL_REJECTED, null, false);
                throw invalidLease(hold);
            }
            Duration applied = Validity.applied(renewed.get(), lease);
            boolean short_ = applied.compareTo(lease) < 0;
            Duration next = short_ && hold.renewed ? hold.lease() : lease;
            hold.endAt(endAt);
            switch (hold.confirmed(start, validity.deadline(start, lease, applied), next, applied)) {
                case APPLIED_EARLIER -> expiry.arm(hold);
                case TOO_LATE -> {
                    // Its validity ran out while the answer was on its way: it stays lost, never valid again.
                    loseHere(hold, LostReason.EXPIRED, null, true);
                    throw invalidLease(hold);
                }
                case ENDED -> throw invalidLease(hold);
                case APPLIED -> { }
            }
            if (hold.renewed && endAt == Hold.NO_END) {
                renewer.tickWithin(validity.renewalPeriodNanos(next));
            }
            events.fire(LockEvent.Type.RENEWED, hold.key(), hold.mode, hold.grant.fencingToken(), ticker.read() - start, null);
            if (short_) {
                throw messages.extendNotApplied(hold.key(), lease, applied, validity.worth(lease, applied));
            }
        } finally {
            hold.endRequest();
        }
    }

    /** Marks the hold lost with EXPIRED if its validity deadline has passed (on a caller's thread). */
    void checkExpiry(Hold hold) {
        if (hold.isActive() && hold.expiredAt(ticker.read())) {
            loseHere(hold, LostReason.EXPIRED, hold.renewalFailure(), true);
        }
    }

    /**
     * Marks an active hold lost (once), found on a caller's thread (a close, {@code ensureValid},
     * {@code forceRelease}, the client closing): its listeners are told here, on that thread.
     *
     * @param clearLater whether to clear a hold that expired or lost its session on the server
     *                   from the watchdog thread (false when the caller clears it itself)
     * @return true if this call ended the hold
     */
    boolean loseHere(Hold hold, LostReason reason, Throwable cause, boolean clearLater) {
        return lose(hold, reason, cause, clearLater, true);
    }

    /**
     * Marks an active hold lost (once), found by one of the client's own threads (expiry timer,
     * watchdog) or reported by the backend: listeners are told on the notification thread, and
     * a hold that expired or lost its session is cleared on the server from the watchdog
     * thread (a session-bound node, a key whose renewal did land, may still be there).
     */
    boolean loseInBackground(Hold hold, LostReason reason, Throwable cause) {
        return lose(hold, reason, cause, true, false);
    }

    /**
     * Marks an active hold lost as the client closes, and returns the telling of its listeners
     * for the caller to run once every hold is marked (null if it was not active): closing must
     * not leave holds valid-looking and unmarked while listeners of other holds run.
     */
    Runnable loseForClose(Hold hold) {
        List<Consumer<LockLostEvent>> listeners = hold.lose(event(hold, LostReason.CLIENT_CLOSED, null));
        return listeners == null ? null : () -> announce(hold, listeners, true);
    }

    /**
     * Renews a newly granted renewed hold at once if its round trip took half a watchdog period
     * or more. The watchdog ticks at a fixed rate of a third of the lease and renews a hold at the
     * first tick half a period into its life, which keeps a normal grant renewed with two periods
     * to spare; a grant whose round trip took most of its lease could instead wait a whole tick
     * and expire unrenewed moments after it was granted. Normal grants schedule nothing here.
     */
    void renewWhenDue(Hold hold) {
        Renewer r = renewer;
        if (r == null || !hold.renewed) {
            return;
        }
        long age = ticker.read() - hold.confirmedStartNanos();
        if (age >= validity.renewalPeriodNanos(hold.lease()) / 2) {
            r.tickWithin(0);
        }
    }

    private boolean lose(Hold hold, LostReason reason, Throwable cause, boolean clearLater, boolean tellHere) {
        List<Consumer<LockLostEvent>> listeners = hold.lose(event(hold, reason, cause));
        if (listeners == null) {
            return false;
        }
        announce(hold, listeners, tellHere);
        if (clearLater && (reason == LostReason.EXPIRED || reason == LostReason.SESSION_LOST)) {
            Renewer r = renewer;
            if (r == null || !r.submit(() -> clearOnServer(hold))) {
                log.debug("Client closing; lock '{}' is cleared by close()", hold.key());
            }
        }
        return true;
    }

    private void announce(Hold hold, List<Consumer<LockLostEvent>> listeners, boolean tellHere) {
        if (listeners == null) {
            return;
        }
        LockLostEvent event = hold.lostEvent();
        log.warn("Lock '{}' on backend '{}' (token {}) was lost: {}", hold.key(), backendName,
                hold.grant.fencingToken(), event.reason(), event.cause());
        long heldNanos = ticker.read() - hold.acquiredNanos();
        if (tellHere) {
            notifier.lostHere(event, hold.mode, heldNanos, listeners);
        } else {
            notifier.lost(event, hold.mode, heldNanos, listeners);
        }
    }

    private LockLostEvent event(Hold hold, LostReason reason, Throwable cause) {
        return new LockLostEvent(hold.key(), backendName, hold.grant.fencingToken(), reason, Instant.now(),
                Duration.ofNanos(ticker.read() - hold.acquiredNanos()), cause);
    }

    /** Ends an active hold as FORCE_RELEASED and deletes it on the server; false if it was not active. */
    boolean forceRelease(Hold hold) {
        if (!loseHere(hold, LostReason.FORCE_RELEASED, null, false)) {
            return false;
        }
        if (hold.takeServerRelease()) {
            try {
                backend.release(hold.grant);
            } catch (RuntimeException e) {
                throw messages.forceReleaseFailed(hold.key(), hold.lease(), e);
            }
        }
        return true;
    }

    /** Deletes the hold on the server if nobody has yet (owner-checked, so never another's); failures are logged. */
    void clearOnServer(Hold hold) {
        if (!hold.takeServerRelease()) {
            return;
        }
        try {
            backend.release(hold.grant);
        } catch (RuntimeException e) {
            log.debug("Releasing lost lock '{}' on backend '{}' failed; it expires on the server", hold.key(),
                    backendName, e);
        }
    }

    void addLostListener(Hold hold, Consumer<LockLostEvent> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("onLost listener must not be null (lock '" + hold.key() + "')");
        }
        checkExpiry(hold);
        LockLostEvent already = hold.addLostListener(listener);
        if (already != null) {
            Notifier.call(listener, already);
        }
    }

    LockLostException invalidLease(Hold hold) {
        LockLostEvent lost = hold.lostEvent();
        if (lost != null) {
            return messages.lost(hold.key(), hold.grant.fencingToken(), lost);
        }
        if (hold.state() != Hold.State.ACTIVE) {
            return messages.closedLease(hold.key());
        }
        return messages.suspended(hold.key(), hold.grant.fencingToken());
    }

    LockLostException closedLease(Hold hold) {
        return messages.closedLease(hold.key());
    }
}
