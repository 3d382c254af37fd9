package dev.mortise.lock.internal;

import dev.mortise.lock.HeldLock;
import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockCallable;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockInspection;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockRunnable;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.internal.semaphore.NativeSemaphore;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.Permits;
import dev.mortise.lock.spi.Ticker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * The core: implements the contract once over any {@link LockBackend}. See {@link LockClient}
 * for the behaviour; this class is thread-safe. It wires the parts together: {@link Acquirer}
 * (the acquire path), {@link Hold} (a hold's state machine), {@link HoldActions} (what
 * happens to a hold after the grant), {@link Validity} (the one validity rule),
 * {@link Renewer} (the watchdog), {@link ExpiryTimer}, {@link Notifier} (all user code run
 * in the background) and {@link BackendEvents}.
 */
public final class DefaultLockClient implements LockClient {

    private static final Logger log = LoggerFactory.getLogger(DefaultLockClient.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** How long catching up after a ticker jump may take before it gives up waiting (a blocked listener). */
    private static final long JUMP_CATCH_UP_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

    private final LockBackend backend;
    private final String backendName;
    private final Arguments arguments;
    /** Every key this client holds or waits for, with its local permit and current hold. */
    private final KeyGates gates = new KeyGates();
    private final Notifier notifier;
    private final HoldActions actions;
    private final Renewer renewer;
    private final Acquirer acquirer;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Duration shortestLease;
    private final Ticker ticker;
    /** Unregisters this client from its ticker's jumps (a no-op on the system ticker). */
    private final Runnable jumpRegistration;
    /**
     * Leases taken through {@link #asLock} and {@link #readWriteLock} views, per thread, key and mode
     * (exclusive, shared): every view of a key in one mode is one Lock.
     */
    private final ThreadLocal<Map<String, Deque<LockLease>>> viewLeases = ThreadLocal.withInitial(HashMap::new);
    private final ThreadLocal<Map<String, Deque<LockLease>>> sharedViewLeases = ThreadLocal.withInitial(HashMap::new);

    public DefaultLockClient(LockBackend backend, ClientSettings settings) {
        this.backend = backend;
        this.backendName = backend.name();
        this.ticker = checkTicker(backend, settings.ticker());
        Validity.check(settings.defaultLease(), backend, settings, "defaultLease", "set LockClientBuilder.defaultLease");
        this.shortestLease = Validity.shortestAccepted(backend, settings);
        this.arguments = new Arguments(backendName, settings.maxKeyBytes());
        Events events = new Events(backendName, settings.listeners());
        Messages messages = new Messages(backendName);
        Validity validity = new Validity(backend, settings);
        this.notifier = new Notifier(backendName, events);
        this.actions = new HoldActions(backend, settings, validity, events, notifier, messages, gates);
        this.renewer = new Renewer(backend, validity, gates, actions, notifier, actions.expiry(),
                settings.defaultLease(), ticker);
        actions.start(renewer);
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        this.acquirer = new Acquirer(this, backend, settings, arguments, validity, gates, actions, events, messages,
                HexFormat.of().formatHex(id) + ":");
        backend.addGrantListener(new BackendEvents(gates, actions));
        this.jumpRegistration = ticker.onJump(this::timeJumped);
    }

    /**
     * The client measures lease time on the ticker its backend stamps grants with; any other
     * would make every validity deadline meaningless, so it is refused here, naming both.
     */
    private static Ticker checkTicker(LockBackend backend, Ticker ticker) {
        Ticker own = backend.ticker();
        if (ticker == null || own == null || ticker != own) {
            throw new IllegalArgumentException("LockClientBuilder.ticker(" + ticker + ") is not the ticker of backend '"
                    + backend.name() + "' (" + own + "), which stamps its grants and judges its leases: "
                    + (own == null || own.isSystem()
                    ? "this backend keeps real time, so a client on it must too; drop the ticker, or test with "
                    + "an in-process LocalLockBackend built on a LocalLockServer with that ticker (lock-test does this)"
                    : "drop LockClientBuilder.ticker (the client takes the backend's), or pass the backend's"));
        }
        return ticker;
    }

    /**
     * The ticker jumped: renew what is now due, expire what ran out, and return once the loss
     * notices are delivered; returns how far the next jump may go (the shortest renewal period).
     */
    private long timeJumped() {
        if (closed.get()) {
            return Long.MAX_VALUE;
        }
        long next = renewer.tickNow(JUMP_CATCH_UP_NANOS);
        actions.expiry().sweep(gates, JUMP_CATCH_UP_NANOS);
        notifier.drain(JUMP_CATCH_UP_NANOS);
        return next;
    }

    // ---- acquiring -------------------------------------------------------------------

    @Override
    public LockLease acquire(String key, Duration wait) {
        return acquirer.attempt(key, wait, null, null, LockMode.EXCLUSIVE, true);
    }

    @Override
    public LockLease acquire(LockSpec spec) {
        checkSpec(spec);
        return acquirer.attempt(spec.key(), spec.waitTime(), spec.explicitLease(), spec.explicitOwner(),
                spec.lockMode(), true);
    }

    @Override
    public Optional<LockLease> tryAcquire(String key) {
        return Optional.ofNullable(acquirer.attempt(key, Duration.ZERO, null, null, LockMode.EXCLUSIVE, false));
    }

    @Override
    public Optional<LockLease> tryAcquire(String key, Duration wait) {
        return Optional.ofNullable(acquirer.attempt(key, wait, null, null, LockMode.EXCLUSIVE, false));
    }

    @Override
    public Optional<LockLease> tryAcquire(LockSpec spec) {
        checkSpec(spec);
        return Optional.ofNullable(acquirer.attempt(spec.key(), spec.waitTime(), spec.explicitLease(),
                spec.explicitOwner(), spec.lockMode(), false));
    }

    /**
     * {@link MultiAcquirer}'s fast path: every part in one backend request when none is in use in
     * this client and the backend batches ({@link Acquirer#attemptAll}).
     *
     * @return the leases in the order of {@code keys}, or null to take the parts one by one
     */
    List<LockLease> acquireAllAtOnce(List<String> keys, List<LockMode> modes, Duration wait, Duration lease,
                                     String owner) {
        return acquirer.attemptAll(keys, modes, wait, lease, owner);
    }

    private void checkSpec(LockSpec spec) {
        if (spec == null) {
            throw new IllegalArgumentException("LockSpec must not be null (backend '" + backendName + "')");
        }
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
        return new LockView(this, arguments.key(key), LockMode.EXCLUSIVE);
    }

    @Override
    public Lock asLock(LockSpec spec) {
        checkSpec(spec);
        String key = arguments.key(spec.key());
        if (spec.explicitOwner() != null) {
            throw new IllegalArgumentException("A Lock view is owned by threads; lock '" + Arguments.abbreviate(key)
                    + "' (backend '" + backendName + "') cannot take owner '" + spec.explicitOwner()
                    + "': use acquire(spec) for an owner id, or drop LockSpec.owner");
        }
        return new LockView(this, key, spec.lockMode(), spec.explicitLease());
    }

    @Override
    public ReadWriteLock readWriteLock(String key) {
        String checked = arguments.key(key);
        return new ReadWriteLockView(new LockView(this, checked, LockMode.SHARED),
                new LockView(this, checked, LockMode.EXCLUSIVE));
    }

    /**
     * Acquires for a view: the calling thread's lease on {@code key} in {@code mode}, with the
     * explicit {@code lease} (null: renewed), or null on timeout.
     */
    LockLease acquireForView(String key, Duration wait, Duration lease, LockMode mode, boolean throwOnTimeout) {
        return acquirer.attempt(key, wait, lease, null, mode, throwOnTimeout);
    }

    /** The calling thread's stack of leases taken through views of {@code key} in {@code mode}, shared by every such view. */
    Deque<LockLease> viewLeases(String key, LockMode mode) {
        return views(mode).get().computeIfAbsent(key, k -> new ArrayDeque<>());
    }

    private ThreadLocal<Map<String, Deque<LockLease>>> views(LockMode mode) {
        return mode == LockMode.SHARED ? sharedViewLeases : viewLeases;
    }

    /** Forgets the calling thread's stack for {@code key} in {@code mode} once it is empty. */
    void viewLeasesDone(String key, LockMode mode) {
        Map<String, Deque<LockLease>> mine = views(mode).get();
        Deque<LockLease> stack = mine.get(key);
        if (stack != null && stack.isEmpty()) {
            mine.remove(key);
        }
    }

    // ---- semaphores ----------------------------------------------------------------------

    /**
     * A native semaphore when the backend keeps permits ({@link LockBackend#supportsPermits()}),
     * else the slot fallback built on exclusive locks.
     */
    @Override
    public LockSemaphore semaphore(String name, int permits) {
        return backend.supportsPermits() ? new NativeSemaphore(this, name, permits)
                : LockClient.super.semaphore(name, permits);
    }

    /**
     * Not API (for {@link NativeSemaphore}): one permit hold of {@code key} taking
     * {@code permits.count()} permits, owned by {@code owner}, or null on timeout when
     * {@code throwOnTimeout} is false.
     */
    public LockLease acquirePermits(String key, Permits permits, Duration wait, Duration lease, String owner,
                                    boolean throwOnTimeout) {
        return acquirer.attempt(key, wait, lease, owner, LockMode.SHARED, permits, throwOnTimeout);
    }

    /** Not API (for {@link NativeSemaphore}): {@link LockBackend#setPermits}, failures named. */
    public void setPermits(String key, int limit) {
        String checked = arguments.key(key);
        if (closed.get()) {
            throw new IllegalStateException("LockClient for backend '" + backendName + "' is closed; cannot change "
                    + "the permits of '" + Arguments.abbreviate(checked) + "'. Build a new client.");
        }
        try {
            backend.setPermits(checked, limit);
        } catch (LockException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockBackendException("Backend '" + backendName + "' could not set the permit count of '"
                    + Arguments.abbreviate(checked) + "' to " + limit + ": " + e
                    + ". Check that the server is reachable and call setPermits again.", checked, backendName, e);
        }
    }

    // ---- the rest ----------------------------------------------------------------------

    HoldActions actions() {
        return actions;
    }

    @Override
    public boolean forceRelease(String key) {
        KeyGates.Gate gate = gates.get(arguments.key(key));
        if (gate == null) {
            return false;
        }
        boolean ended = false;
        LockBackendException failure = null;
        for (Hold hold : gate.holds()) {
            try {
                ended |= actions.forceRelease(hold);
            } catch (LockBackendException e) {
                // The others are still ended (each is marked lost before its release is sent).
                ended = true;
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return ended;
    }

    @Override
    public LockInspection inspect(String key) {
        String checked = arguments.key(key);
        if (closed.get()) {
            throw new IllegalStateException("LockClient for backend '" + backendName + "' is closed; cannot inspect '"
                    + Arguments.abbreviate(checked) + "'. Build a new client.");
        }
        Instant readAt = Instant.now();
        KeyState state;
        try {
            state = backend.inspect(checked);
        } catch (LockException | UnsupportedOperationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LockBackendException("Backend '" + backendName + "' could not inspect lock '"
                    + Arguments.abbreviate(checked) + "': " + e + ". Check that the server is reachable.", checked,
                    backendName, e);
        }
        if (state == null) {
            throw new LockBackendException("Backend '" + backendName + "' returned no state when inspecting lock '"
                    + Arguments.abbreviate(checked) + "': its LockBackend.inspect must return a KeyState "
                    + "(KeyState.free(...) for a free key)", checked, backendName, null);
        }
        // Which of the server's holders are ours: the owner strings of this client's live holds of the key.
        Set<String> ours = new HashSet<>();
        KeyGates.Gate gate = gates.get(checked);
        if (gate != null) {
            for (Hold hold : gate.holds()) {
                if (hold.isActive()) {
                    ours.add(hold.grant.owner());
                }
            }
        }
        List<LockInspection.Holder> holders = new ArrayList<>(state.holders().size());
        for (KeyState.Holder holder : state.holders()) {
            holders.add(new LockInspection.Holder(HolderIds.of(holder.owner()), holder.fencingToken(),
                    holder.remaining(), ours.contains(holder.owner())));
        }
        return new LockInspection(key, backendName, state.mode(), holders, state.waiters(), readAt);
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
    public Duration shortestLease() {
        return shortestLease;
    }

    @Override
    public List<HeldLock> heldLocks() {
        List<HeldLock> result = new ArrayList<>();
        long now = ticker.read();
        for (KeyGates.Gate gate : gates.all()) {
            for (Hold hold : gate.holds()) {
                if (hold.isActive()) {
                    result.add(new HeldLock(hold.key(), backendName, hold.grant.fencingToken(), hold.openLeases(),
                            hold.acquiredAt(), Duration.ofNanos(now - hold.acquiredNanos()), hold.remaining(),
                            hold.renewed, hold.ownerDescription(), hold.mode, hold.holderId()));
                }
            }
        }
        return result;
    }

    /**
     * Stops acquires under way (they fail; what the server granted them is released), ends every
     * hold as {@link LostReason#CLIENT_CLOSED} and releases it on the server, stops the client's
     * threads (queued notifications are still delivered) and closes the backend.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        acquirer.close();
        jumpRegistration.run();
        // Every hold is marked lost first, all at once, before any listener runs or any thread stops:
        // a slow onLost listener or a renewal in flight must not leave other holds looking valid.
        List<Hold> holds = new ArrayList<>();
        List<Runnable> announcements = new ArrayList<>();
        for (KeyGates.Gate gate : new ArrayList<>(gates.all())) {
            for (Hold hold : gate.holds()) {
                holds.add(hold);
                Runnable announce = actions.loseForClose(hold);
                if (announce != null) {
                    announcements.add(announce);
                }
            }
        }
        renewer.shutdown();
        actions.expiry().shutdown();
        for (Hold hold : holds) {
            actions.clearOnServer(hold);
        }
        announcements.forEach(Runnable::run);
        notifier.shutdown();
        try {
            backend.close();
        } catch (RuntimeException e) {
            log.warn("Closing backend '{}' failed", backendName, e);
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Number of local gates in use (for tests of cleanup). */
    int gatesInUse() {
        return gates.size();
    }

    @Override
    public String toString() {
        return "LockClient[backend=" + backendName + ", keys=" + gates.size() + "]";
    }
}
