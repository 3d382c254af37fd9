package dev.mortise.lock.internal;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockCallable;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockRunnable;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * The core: implements the contract once over any {@link LockBackend}. See
 * {@link LockClient} for the behaviour; this class is thread-safe.
 */
public final class DefaultLockClient implements LockClient {

    private static final Logger log = LoggerFactory.getLogger(DefaultLockClient.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final LockBackend backend;
    private final String backendName;
    private final ClientSettings settings;
    private final Arguments arguments;
    private final Events events;
    /** Every key this client holds or waits for, with its local permit and current hold. */
    private final KeyGates gates = new KeyGates();
    private final Watchdog watchdog;
    private final String clientId;
    /** {@code clientId + ":"}: owner ids are this prefix and a per-hold counter. */
    private final String ownerPrefix;
    private final AtomicLong holdSequence = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    /**
     * Releases lost holds and tells listeners about losses found by the watchdog or the
     * backend, off those threads: a slow server or a slow listener cannot delay renewals.
     */
    private final java.util.concurrent.ExecutorService background;

    public DefaultLockClient(LockBackend backend, ClientSettings settings) {
        this.backend = backend;
        this.backendName = backend.name();
        this.settings = settings;
        this.arguments = new Arguments(backendName, settings.maxKeyBytes());
        this.events = new Events(backendName, settings.listeners());
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        this.clientId = HexFormat.of().formatHex(id);
        this.ownerPrefix = clientId + ":";
        this.watchdog = new Watchdog(this, backend, settings.defaultLease(), gates);
        this.background = java.util.concurrent.Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "mortise-background-" + backendName);
            thread.setDaemon(true);
            return thread;
        });
        backend.addGrantListener(new BackendGrantListener());
    }

    // ---- acquiring -------------------------------------------------------------------

    @Override
    public LockLease acquire(String key, Duration wait) {
        return attempt(key, wait, null, null, true);
    }

    @Override
    public LockLease acquire(LockSpec spec) {
        checkSpec(spec);
        return attempt(spec.key(), spec.waitTime(), spec.explicitLease(), spec.explicitOwner(), true);
    }

    @Override
    public Optional<LockLease> tryAcquire(String key) {
        return Optional.ofNullable(attempt(key, Duration.ZERO, null, null, false));
    }

    @Override
    public Optional<LockLease> tryAcquire(String key, Duration wait) {
        return Optional.ofNullable(attempt(key, wait, null, null, false));
    }

    @Override
    public Optional<LockLease> tryAcquire(LockSpec spec) {
        checkSpec(spec);
        return Optional.ofNullable(attempt(spec.key(), spec.waitTime(), spec.explicitLease(), spec.explicitOwner(),
                false));
    }

    private void checkSpec(LockSpec spec) {
        if (spec == null) {
            throw new IllegalArgumentException("LockSpec must not be null (backend '" + backendName + "')");
        }
    }

    /**
     * The one acquire path.
     *
     * @return the lease, or null if not granted in time and {@code throwOnTimeout} is false
     */
    private LockLease attempt(String requestedKey, Duration requestedWait, Duration requestedLease,
                              String requestedOwner, boolean throwOnTimeout) {
        String key = arguments.key(requestedKey);
        Duration wait = arguments.waitTime(requestedWait, key);
        Duration explicitLease = arguments.lease(requestedLease, key);
        String ownerId = arguments.owner(requestedOwner, key);
        Thread ownerThread = ownerId == null ? Thread.currentThread() : null;
        ensureOpen(key);
        long start = System.nanoTime();
        if (!wait.isZero() && Thread.interrupted()) {
            throw interrupted(key, new InterruptedException());
        }

        KeyGates.Gate current = gates.get(key);
        Hold held = current == null ? null : current.hold();
        if (held != null && held.ownedBy(ownerThread, ownerId) && held.enter()) {
            events.fire(LockEvent.Type.ACQUIRED, key, held.grant.fencingToken(), 0, null);
            return new Lease(this, held);
        }

        long deadline = Deadlines.after(start, wait);
        KeyGates.Gate gate;
        try {
            gate = gates.enter(key, wait.isZero() ? 0 : Deadlines.left(deadline));
        } catch (InterruptedException e) {
            throw interrupted(key, e);
        }
        if (gate == null) {
            return notGranted(key, wait, start, throwOnTimeout);
        }
        boolean granted = false;
        Hold published = null;
        try {
            Duration lease = explicitLease != null ? explicitLease : settings.defaultLease();
            String owner = ownerPrefix + holdSequence.incrementAndGet();
            LockRequest request = new LockRequest(key, owner, lease, explicitLease == null);
            gate.expect(owner);
            long left = Deadlines.left(deadline);
            Optional<Grant> grant = left == 0 ? backend.tryAcquire(request).grant()
                    : backend.acquire(request, Duration.ofNanos(left));
            if (grant.isEmpty()) {
                return notGranted(key, wait, start, throwOnTimeout);
            }
            long requestedAt = grant.get().requestedAtNanos();
            // A renewed hold is worth what the backend says a confirmation is worth (LockBackend.validity),
            // and the watchdog keeps confirming it; an explicit lease runs its full length, but a grant
            // that arrives after even the backend's validity has passed is too late either way.
            long confirmedUntil = requestedAt + usableNanos(lease); // never later than the full lease
            Hold hold = new Hold(grant.get(), ownerThread, ownerId, lease, explicitLease == null, gate,
                    explicitLease == null ? confirmedUntil : requestedAt + settings.usableNanos(lease));
            if (System.nanoTime() - confirmedUntil >= 0) {
                // Granted too late to be of use: the lease ran out on the way back.
                releaseQuietly(hold);
                throw new LockBackendException("Lock '" + Arguments.abbreviate(key) + "' on backend '" + backendName
                        + "' was granted, but the answer came back after its lease of " + lease
                        + (backend.validity(lease).equals(lease) ? "" : " (valid locally for " + backend.validity(lease)
                        + " on this backend)") + " had run out, so "
                        + "it was given up at once. Use a lease well above the server's round-trip time (and the "
                        + "connection set-up of a lazily connecting client).", key, backendName, null);
            }
            KeyGates.EarlyState early = gate.publish(hold);
            published = hold;
            if (early == KeyGates.EarlyState.LOST) {
                // The backend reported the session gone while the grant was on its way back: it is
                // not ours to use. Clear it on the server and say so rather than return a dead lease.
                Throwable cause = gate.earlyLostCause();
                hold.lose(new LockLostEvent(key, backendName, grant.get().fencingToken(), LostReason.SESSION_LOST,
                        Instant.now(), Duration.ZERO, cause));
                releaseQuietly(hold);
                throw new LockBackendException("Lock '" + Arguments.abbreviate(key) + "' on backend '" + backendName
                        + "' was granted, but the session it was bound to ended before the answer arrived, so it "
                        + "was given up at once. Retry once the connection to the server is back.", key, backendName,
                        cause);
            }
            if (early == KeyGates.EarlyState.SUSPENDED) {
                hold.suspended(true);
            }
            watchdog.add(hold);
            granted = true;
            events.fire(LockEvent.Type.ACQUIRED, key, hold.grant.fencingToken(), System.nanoTime() - start, null);
            return new Lease(this, hold);
        } catch (InterruptedException e) {
            throw interrupted(key, e);
        } catch (LockException e) {
            events.fire(LockEvent.Type.ERROR, key, -1, System.nanoTime() - start, e);
            throw e;
        } catch (RuntimeException e) {
            events.fire(LockEvent.Type.ERROR, key, -1, System.nanoTime() - start, e);
            throw new LockBackendException("Acquiring lock '" + Arguments.abbreviate(key) + "' failed on backend '"
                    + backendName + "': " + e + ". Check that the server is reachable; nothing was granted.",
                    key, backendName, e);
        } finally {
            if (!granted) {
                gate.leave(published);
            }
        }
    }

    private LockLease notGranted(String key, Duration wait, long start, boolean throwOnTimeout) {
        long waited = System.nanoTime() - start;
        events.fire(wait.isZero() ? LockEvent.Type.BUSY : LockEvent.Type.TIMEOUT, key, -1, waited, null);
        if (!throwOnTimeout) {
            return null;
        }
        throw new LockTimeoutException("Lock '" + Arguments.abbreviate(key) + "' on backend '" + backendName
                + "' was not granted within " + wait + ": another owner holds it. Wait longer, use tryAcquire to skip "
                + "busy work, or see who holds it (LockClient.heldLocks() on each instance).", key, backendName);
    }

    private LockInterruptedException interrupted(String key, InterruptedException e) {
        Thread.currentThread().interrupt();
        return new LockInterruptedException("Interrupted while waiting for lock '" + Arguments.abbreviate(key)
                + "' on backend '" + backendName + "'; nothing is held. The interrupt flag is set again.",
                key, backendName, e);
    }

    // ---- work under a lock -----------------------------------------------------------

    @Override
    public <T, X extends Throwable> T call(String key, Duration wait, LockCallable<T, X> work) throws X {
        if (work == null) {
            throw new IllegalArgumentException("work must not be null (lock '" + key + "', backend '" + backendName + "')");
        }
        LockLease lease = acquire(key, wait);
        T result;
        try {
            result = work.call();
        } catch (Throwable failure) {
            try {
                lease.close();
            } catch (LockLostException lost) {
                lost.addSuppressed(failure);
                throw lost;
            } catch (LockException closeFailure) {
                failure.addSuppressed(closeFailure);
            }
            throw failure;
        }
        lease.close();
        return result;
    }

    @Override
    public <X extends Throwable> void run(String key, Duration wait, LockRunnable<X> work) throws X {
        if (work == null) {
            throw new IllegalArgumentException("work must not be null (lock '" + key + "', backend '" + backendName + "')");
        }
        call(key, wait, () -> {
            work.run();
            return null;
        });
    }

    @Override
    public Lock asLock(String key) {
        return new LockView(this, arguments.key(key));
    }

    // ---- leaving, losing ---------------------------------------------------------------

    void leave(Hold hold) {
        checkExpiry(hold);
        boolean release = hold.leave() && hold.takeServerRelease();
        LockBackendException releaseFailure = null;
        if (release) {
            try {
                if (backend.release(hold.grant)) {
                    events.fire(LockEvent.Type.RELEASED, hold.key(), hold.grant.fencingToken(),
                            System.nanoTime() - hold.acquiredNanos, null);
                } else {
                    hold.reopenForLoss();
                    lose(hold, LostReason.MISSING_AT_RELEASE, null);
                }
            } catch (RuntimeException e) {
                events.fire(LockEvent.Type.ERROR, hold.key(), hold.grant.fencingToken(), 0, e);
                releaseFailure = new LockBackendException("Releasing lock '" + Arguments.abbreviate(hold.key())
                        + "' on backend '" + backendName + "' failed: " + e + ". The hold ends when its lease runs out"
                        + " (at most " + hold.lease + ").", hold.key(), backendName, e);
            }
            freeLocally(hold);
        } else if (!hold.isActive() && hold.openLeases() == 0) {
            // Lost earlier; the server may still hold a stale entry (a session-bound node), so clear it.
            releaseQuietly(hold);
        }
        LockLostEvent lost = hold.lostEvent();
        if (lost != null) {
            LockLostException e = lostException(hold, lost);
            if (releaseFailure != null) {
                e.addSuppressed(releaseFailure);
            }
            throw e;
        }
        if (releaseFailure != null) {
            throw releaseFailure;
        }
    }

    void extend(Hold hold, Duration lease) {
        arguments.lease(lease, hold.key());
        if (lease == null) {
            throw new IllegalArgumentException("Lease for lock '" + Arguments.abbreviate(hold.key())
                    + "' must not be null (backend '" + backendName + "')");
        }
        checkExpiry(hold);
        if (!hold.isActive()) {
            throw invalidLease(hold);
        }
        long start = System.nanoTime();
        boolean renewed;
        try {
            renewed = backend.renew(hold.grant, lease);
        } catch (LockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockBackendException("Extending lock '" + Arguments.abbreviate(hold.key()) + "' on backend '"
                    + backendName + "' failed: " + e + ". The lease is unchanged; retry before it runs out.",
                    hold.key(), backendName, e);
        }
        if (!renewed) {
            lose(hold, LostReason.RENEWAL_REJECTED, null);
            throw invalidLease(hold);
        }
        hold.resetValidity(start + settings.usableNanos(lease));
        events.fire(LockEvent.Type.RENEWED, hold.key(), hold.grant.fencingToken(), System.nanoTime() - start, null);
        if (!hold.renewed) {
            watchdog.scheduleExpiryCheck(hold);
        }
    }

    /** Marks the hold lost with EXPIRED if its validity deadline has passed (on a caller's thread). */
    void checkExpiry(Hold hold) {
        if (hold.isActive() && hold.expiredAt(System.nanoTime())) {
            lose(hold, LostReason.EXPIRED, null);
        }
    }

    /** As {@link #checkExpiry}, run by the watchdog at the hold's deadline. */
    void expiryDue(Hold hold) {
        if (hold.isActive() && hold.expiredAt(System.nanoTime())) {
            lose(hold, LostReason.EXPIRED, null, true);
        }
    }

    /** The watchdog's renewal found the hold gone. */
    void renewalRejected(Hold hold) {
        lose(hold, LostReason.RENEWAL_REJECTED, null, true);
    }

    void renewalFailed(Hold hold, RuntimeException e) {
        events.fire(LockEvent.Type.ERROR, hold.key(), hold.grant.fencingToken(), 0, e);
    }

    void lose(Hold hold, LostReason reason, Throwable cause) {
        lose(hold, reason, cause, false);
    }

    /**
     * Marks the hold lost (once) and tells its listeners: at once on this thread, or, when
     * {@code tellInBackground} (found by the watchdog, reported by the backend's own thread,
     * neither of which may wait for a listener), on the background thread — the hold is
     * already invalid for everyone who asks.
     */
    private void lose(Hold hold, LostReason reason, Throwable cause, boolean tellInBackground) {
        long heldFor = System.nanoTime() - hold.acquiredNanos;
        LockLostEvent event = new LockLostEvent(hold.key(), backendName, hold.grant.fencingToken(), reason,
                Instant.now(), Duration.ofNanos(heldFor), cause);
        List<Consumer<LockLostEvent>> listeners = hold.lose(event);
        if (listeners == null) {
            return;
        }
        freeLocally(hold);
        log.warn("Lock '{}' on backend '{}' (token {}) was lost: {}", hold.key(), backendName,
                hold.grant.fencingToken(), reason, cause);
        boolean clearOnServer = reason == LostReason.EXPIRED || reason == LostReason.SESSION_LOST;
        Runnable notify = () -> {
            events.fireLost(hold.key(), hold.grant.fencingToken(), heldFor, reason, cause);
            for (Consumer<LockLostEvent> listener : listeners) {
                notifyLost(listener, event);
            }
        };
        if (tellInBackground) {
            inBackground(() -> {
                notify.run();
                if (clearOnServer) {
                    releaseQuietly(hold);
                }
            }, notify);
            return;
        }
        if (clearOnServer) {
            // The server may still keep the entry (a session-bound node or key outlives the local
            // lease); clear it now rather than when the holder gets round to closing the lease.
            inBackground(() -> releaseQuietly(hold), () -> { });
        }
        notify.run();
    }

    /** Runs {@code task} on the background thread, or {@code ifClosing} here once it has shut down. */
    private void inBackground(Runnable task, Runnable ifClosing) {
        try {
            background.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // close() releases every hold itself; listeners still hear of the loss
            ifClosing.run();
        }
    }

    private void freeLocally(Hold hold) {
        if (hold.takeLocalRelease()) {
            hold.gate.leave(hold);
        }
    }

    void addLostListener(Hold hold, Consumer<LockLostEvent> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("onLost listener must not be null (lock '" + hold.key() + "')");
        }
        checkExpiry(hold);
        LockLostEvent already = hold.addLostListener(listener);
        if (already != null) {
            notifyLost(listener, already);
        }
    }

    private void notifyLost(Consumer<LockLostEvent> listener, LockLostEvent event) {
        try {
            listener.accept(event);
        } catch (Throwable t) {
            log.warn("onLost listener for lock '{}' failed; ignored", event.key(), t);
        }
    }

    private void releaseQuietly(Hold hold) {
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

    LockLostException invalidLease(Hold hold) {
        LockLostEvent lost = hold.lostEvent();
        if (lost != null) {
            return lostException(hold, lost);
        }
        return new LockLostException("Lock '" + Arguments.abbreviate(hold.key()) + "' on backend '" + backendName
                + "' (token " + hold.grant.fencingToken() + ") is not certainly ours: the connection to the server is "
                + "suspended. Do not make irreversible changes until it is valid again.", hold.key(), backendName,
                LostReason.SESSION_LOST, null);
    }

    LockLostException closedLease(Hold hold) {
        return new LockLostException("Lease of lock '" + Arguments.abbreviate(hold.key()) + "' on backend '"
                + backendName + "' is closed; acquire the lock again", hold.key(), backendName, null, null);
    }

    private LockLostException lostException(Hold hold, LockLostEvent lost) {
        return new LockLostException("Lock '" + Arguments.abbreviate(hold.key()) + "' on backend '" + backendName
                + "' (token " + hold.grant.fencingToken() + ") was lost after " + lost.heldFor().toMillis()
                + " ms: " + describe(lost.reason()) + ". Another owner may have held it since; writes fenced with "
                + "token " + hold.grant.fencingToken() + " will be refused by fenced storage.",
                hold.key(), backendName, lost.reason(), lost.cause());
    }

    private static String describe(LostReason reason) {
        return switch (reason) {
            case EXPIRED -> "its lease ran out before it was renewed or closed (use a longer lease, or none to have it"
                    + " renewed)";
            case RENEWAL_REJECTED -> "the server no longer had it when the watchdog renewed it";
            case SESSION_LOST -> "the session it was bound to ended";
            case MISSING_AT_RELEASE -> "when it was released the server no longer had it (it expired or was removed "
                    + "while the work ran)";
            case CLIENT_CLOSED -> "the LockClient was closed while it was held";
            case FORCE_RELEASED -> "an operator force-released it (LockClient.forceRelease, the actuator endpoint)";
        };
    }

    // ---- the rest ----------------------------------------------------------------------

    @Override
    public boolean forceRelease(String key) {
        KeyGates.Gate gate = gates.get(arguments.key(key));
        Hold hold = gate == null ? null : gate.hold();
        if (hold == null || !hold.isActive()) {
            return false;
        }
        lose(hold, LostReason.FORCE_RELEASED, null);
        if (!hold.takeServerRelease()) {
            return true;
        }
        try {
            backend.release(hold.grant);
        } catch (RuntimeException e) {
            throw new LockBackendException("Force-releasing lock '" + Arguments.abbreviate(key) + "' on backend '"
                    + backendName + "' failed: " + e + ". The hold ends when its lease runs out (at most "
                    + hold.lease + ").", key, backendName, e);
        }
        return true;
    }

    @Override
    public void ping() {
        try {
            backend.ping();
        } catch (LockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockBackendException("Backend '" + backendName + "' did not answer a ping: " + e
                    + ". Check that the server is reachable.", null, backendName, e);
        }
    }

    @Override
    public String backendName() {
        return backendName;
    }

    @Override
    public BackendGuarantees guarantees() {
        return backend.guarantees();
    }

    @Override
    public List<HeldLock> heldLocks() {
        List<HeldLock> result = new ArrayList<>();
        long now = System.nanoTime();
        for (KeyGates.Gate gate : gates.all()) {
            Hold hold = gate.hold();
            if (hold != null && hold.isActive()) {
                result.add(new HeldLock(hold.key(), backendName, hold.grant.fencingToken(), hold.openLeases(),
                        hold.acquiredAt(), Duration.ofNanos(now - hold.acquiredNanos), hold.remaining(), hold.renewed,
                        hold.ownerDescription()));
            }
        }
        return result;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        watchdog.shutdown();
        background.shutdown();
        for (KeyGates.Gate gate : new ArrayList<>(gates.all())) {
            Hold hold = gate.hold();
            if (hold != null) {
                lose(hold, LostReason.CLIENT_CLOSED, null);
                releaseQuietly(hold);
            }
        }
        try {
            backend.close();
        } catch (RuntimeException e) {
            log.warn("Closing backend '{}' failed", backendName, e);
        }
    }

    private void ensureOpen(String key) {
        if (closed.get()) {
            throw new IllegalStateException("LockClient for backend '" + backendName + "' is closed; cannot lock '"
                    + Arguments.abbreviate(key) + "'. Build a new client.");
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Nanoseconds a hold granted or renewed with {@code lease} is valid locally, from its request. */
    long usableNanos(Duration lease) {
        Duration validity = backend.validity(lease);
        return settings.usableNanos(validity == null || validity.compareTo(lease) > 0 || validity.isNegative()
                || validity.isZero() ? lease : validity);
    }

    Events events() {
        return events;
    }

    /** Number of local gates in use (for tests of cleanup). */
    int gatesInUse() {
        return gates.size();
    }

    @Override
    public String toString() {
        return "LockClient[backend=" + backendName + ", keys=" + gates.size() + "]";
    }

    /**
     * Routes the backend's session events to the hold of the grant, or, while the grant is still
     * on its way back to the acquiring thread, to its gate, which hands them to the hold when
     * it is published (so an event in that instant is not lost).
     */
    private final class BackendGrantListener implements GrantListener {
        @Override
        public void suspended(Grant grant) {
            Hold hold = route(grant, KeyGates.EarlyState.SUSPENDED, null);
            if (hold != null) {
                hold.suspended(true);
            }
        }

        @Override
        public void restored(Grant grant) {
            Hold hold = route(grant, KeyGates.EarlyState.NONE, null);
            if (hold != null) {
                hold.suspended(false);
            }
        }

        @Override
        public void lost(Grant grant, Throwable cause) {
            Hold hold = route(grant, KeyGates.EarlyState.LOST, cause);
            if (hold != null) {
                lose(hold, LostReason.SESSION_LOST, cause, true);
            }
        }

        private Hold route(Grant grant, KeyGates.EarlyState event, Throwable cause) {
            KeyGates.Gate gate = gates.get(grant.key());
            return gate == null ? null : gate.route(grant.owner(), event, cause);
        }
    }
}
