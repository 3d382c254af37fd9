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
import java.util.concurrent.ConcurrentHashMap;
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
    private final KeyGates gates = new KeyGates();
    private final ConcurrentHashMap<String, Hold> holdsByKey = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Hold> holdsByOwner = new ConcurrentHashMap<>();
    private final Watchdog watchdog;
    private final String clientId;
    private final AtomicLong holdSequence = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Releases lost holds off the watchdog thread, so a slow server cannot delay renewals. */
    private final java.util.concurrent.ExecutorService releaser;

    public DefaultLockClient(LockBackend backend, ClientSettings settings) {
        this.backend = backend;
        this.backendName = backend.name();
        this.settings = settings;
        this.arguments = new Arguments(backendName, settings.maxKeyBytes());
        this.events = new Events(backendName, settings.listeners());
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        this.clientId = HexFormat.of().formatHex(id);
        this.watchdog = new Watchdog(this, backend, settings.defaultLease());
        this.releaser = java.util.concurrent.Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "mortise-release-" + backendName);
            thread.setDaemon(true);
            return thread;
        });
        backend.addGrantListener(new BackendGrantListener());
    }

    // ---- acquiring -------------------------------------------------------------------

    @Override
    public LockLease acquire(String key, Duration wait) {
        return acquire(LockSpec.of(key).waitFor(wait));
    }

    @Override
    public LockLease acquire(LockSpec spec) {
        return attempt(spec, true).orElseThrow();
    }

    @Override
    public Optional<LockLease> tryAcquire(String key) {
        return attempt(LockSpec.of(key), false);
    }

    @Override
    public Optional<LockLease> tryAcquire(String key, Duration wait) {
        return attempt(LockSpec.of(key).waitFor(wait), false);
    }

    @Override
    public Optional<LockLease> tryAcquire(LockSpec spec) {
        return attempt(spec, false);
    }

    private Optional<LockLease> attempt(LockSpec spec, boolean throwOnTimeout) {
        if (spec == null) {
            throw new IllegalArgumentException("LockSpec must not be null (backend '" + backendName + "')");
        }
        String key = arguments.key(spec.key());
        Duration wait = arguments.waitTime(spec.waitTime(), key);
        Duration explicitLease = arguments.lease(spec.explicitLease(), key);
        OwnerContext owner = OwnerContext.of(arguments.owner(spec.explicitOwner(), key));
        ensureOpen(key);
        long start = System.nanoTime();
        if (!wait.isZero() && Thread.interrupted()) {
            throw interrupted(key, new InterruptedException());
        }

        Hold held = holdsByKey.get(key);
        if (held != null && held.owner.equals(owner) && held.enter()) {
            events.fire(LockEvent.Type.ACQUIRED, key, held.grant.fencingToken(), 0, null);
            return Optional.of(new Lease(this, held));
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
        try {
            Duration lease = explicitLease != null ? explicitLease : settings.defaultLease();
            LockRequest request = new LockRequest(key, clientId + ":" + Long.toHexString(holdSequence.incrementAndGet()),
                    lease, explicitLease == null);
            long left = Deadlines.left(deadline);
            Optional<Grant> grant = left == 0 ? backend.tryAcquire(request).grant()
                    : backend.acquire(request, Duration.ofNanos(left));
            if (grant.isEmpty()) {
                return notGranted(key, wait, start, throwOnTimeout);
            }
            Hold hold = new Hold(grant.get(), owner, lease, explicitLease == null, gate,
                    grant.get().requestedAtNanos() + settings.usableNanos(lease));
            if (hold.expiredAt(System.nanoTime())) {
                // Granted too late to be of use: the lease ran out on the way back.
                releaseQuietly(hold);
                events.fire(LockEvent.Type.ERROR, key, grant.get().fencingToken(), System.nanoTime() - start, null);
                throw new LockBackendException("Lock '" + Arguments.abbreviate(key) + "' on backend '" + backendName
                        + "' was granted, but the answer came back after its lease of " + lease + " had run out, so "
                        + "it was given up at once. Use a lease well above the server's round-trip time (and the "
                        + "connection set-up of a lazily connecting client).", key, backendName, null);
            }
            holdsByOwner.put(request.owner(), hold);
            holdsByKey.put(key, hold);
            watchdog.add(hold);
            granted = true;
            events.fire(LockEvent.Type.ACQUIRED, key, hold.grant.fencingToken(), System.nanoTime() - start, null);
            return Optional.of(new Lease(this, hold));
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
                gate.leave();
            }
        }
    }

    private Optional<LockLease> notGranted(String key, Duration wait, long start, boolean throwOnTimeout) {
        long waited = System.nanoTime() - start;
        events.fire(wait.isZero() ? LockEvent.Type.BUSY : LockEvent.Type.TIMEOUT, key, -1, waited, null);
        if (!throwOnTimeout) {
            return Optional.empty();
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
            watchdog.remove(hold);
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

    /** Marks the hold lost with EXPIRED if its validity deadline has passed. */
    void checkExpiry(Hold hold) {
        if (hold.isActive() && hold.expiredAt(System.nanoTime())) {
            lose(hold, LostReason.EXPIRED, null);
        }
    }

    void renewalRejected(Hold hold) {
        lose(hold, LostReason.RENEWAL_REJECTED, null);
    }

    void renewalFailed(Hold hold, RuntimeException e) {
        events.fire(LockEvent.Type.ERROR, hold.key(), hold.grant.fencingToken(), 0, e);
    }

    void lose(Hold hold, LostReason reason, Throwable cause) {
        long heldFor = System.nanoTime() - hold.acquiredNanos;
        LockLostEvent event = new LockLostEvent(hold.key(), backendName, hold.grant.fencingToken(), reason,
                Instant.now(), Duration.ofNanos(heldFor), cause);
        List<Consumer<LockLostEvent>> listeners = hold.lose(event);
        if (listeners == null) {
            return;
        }
        watchdog.remove(hold);
        freeLocally(hold);
        log.warn("Lock '{}' on backend '{}' (token {}) was lost: {}", hold.key(), backendName,
                hold.grant.fencingToken(), reason, cause);
        events.fireLost(hold.key(), hold.grant.fencingToken(), heldFor, reason, cause);
        if (reason == LostReason.EXPIRED || reason == LostReason.SESSION_LOST) {
            // The server may still keep the entry (a session-bound node or key outlives the local
            // lease); clear it now rather than when the holder gets round to closing the lease.
            releaseInBackground(hold);
        }
        for (Consumer<LockLostEvent> listener : listeners) {
            notifyLost(listener, event);
        }
    }

    private void releaseInBackground(Hold hold) {
        try {
            releaser.execute(() -> releaseQuietly(hold));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // close() releases every hold itself
        }
    }

    private void freeLocally(Hold hold) {
        if (hold.takeLocalRelease()) {
            holdsByKey.remove(hold.key(), hold);
            holdsByOwner.remove(hold.grant.owner(), hold);
            hold.gate.leave();
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
        Hold hold = holdsByKey.get(arguments.key(key));
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
        for (Hold hold : holdsByKey.values()) {
            if (hold.isActive()) {
                result.add(new HeldLock(hold.key(), backendName, hold.grant.fencingToken(), hold.openLeases(),
                        hold.acquiredAt, Duration.ofNanos(now - hold.acquiredNanos), hold.remaining(), hold.renewed,
                        hold.owner.toString()));
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
        releaser.shutdown();
        for (Hold hold : new ArrayList<>(holdsByKey.values())) {
            lose(hold, LostReason.CLIENT_CLOSED, null);
            releaseQuietly(hold);
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

    long usableNanos(Duration lease) {
        return settings.usableNanos(lease);
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
        return "LockClient[backend=" + backendName + ", held=" + holdsByKey.size() + "]";
    }

    private final class BackendGrantListener implements GrantListener {
        @Override
        public void suspended(Grant grant) {
            Hold hold = holdsByOwner.get(grant.owner());
            if (hold != null) {
                hold.suspended(true);
            }
        }

        @Override
        public void restored(Grant grant) {
            Hold hold = holdsByOwner.get(grant.owner());
            if (hold != null) {
                hold.suspended(false);
            }
        }

        @Override
        public void lost(Grant grant, Throwable cause) {
            Hold hold = holdsByOwner.get(grant.owner());
            if (hold != null) {
                lose(hold, LostReason.SESSION_LOST, cause);
            }
        }
    }
}
