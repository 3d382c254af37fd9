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
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.internal.group.LeaseFutures;
import dev.mortise.lock.internal.semaphore.Semaphores;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.Ticker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * The core: implements the contract once over any {@link LockBackend}. See {@link LockClient}
 * for the behaviour; this class is thread-safe. It wires the parts together: {@link Acquirer}
 * (the acquire path), {@link BatchAcquirer} and {@link MultiAcquirer} (multi-key locks),
 * {@link Hold} (a hold's state machine), {@link HoldActions} (what happens to a hold after the
 * grant), {@link Validity} (the one validity rule), {@link Renewer} (the watchdog),
 * {@link ExpiryTimer}, {@link Notifier} (all user code run in the background),
 * {@link BackendEvents}, {@link LockViews}, {@link Inspector} and {@link CorePermits} (what a
 * native semaphore asks of the core). Built by {@link DefaultCoreProvider}.
 */
final class DefaultLockClient implements LockClient {

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
    private final AsyncAcquirer async;
    private final MultiAcquirer multi;
    private final LockViews views;
    private final Inspector inspector;
    private final CorePermits permitHolds;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Duration shortestLease;
    private final Ticker ticker;
    /** Unregisters this client from its ticker's jumps (a no-op on the system ticker). */
    private final Runnable jumpRegistration;

    DefaultLockClient(LockBackend backend, ClientSettings settings) {
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
        this.async = new AsyncAcquirer(acquirer, gates, backend, settings, backendName);
        this.multi = new MultiAcquirer(this, new BatchAcquirer(acquirer, backend, settings, arguments, validity,
                gates, actions, events, messages));
        this.views = new LockViews(acquirer, backendName);
        this.inspector = new Inspector(backend, arguments, gates, closed::get);
        this.permitHolds = new CorePermits(acquirer, async, backend, arguments, closed::get);
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

    @Override
    public CompletableFuture<LockLease> acquireAsync(LockSpec spec) {
        return async.attempt(spec, true);
    }

    @Override
    public CompletableFuture<Optional<LockLease>> tryAcquireAsync(LockSpec spec) {
        return LeaseFutures.map(async.attempt(spec, false), Optional::ofNullable, LeaseFutures::closeQuietly);
    }

    @Override
    public MultiLease acquireAll(MultiLockSpec spec) {
        return multi.acquire(spec);
    }

    @Override
    public Optional<MultiLease> tryAcquireAll(MultiLockSpec spec) {
        return multi.tryAcquire(spec);
    }

    @Override
    public CompletableFuture<MultiLease> acquireAllAsync(MultiLockSpec spec) {
        return LeaseFutures.map(multi.acquireAsync(spec, true), Optional::orElseThrow,
                granted -> granted.ifPresent(LeaseFutures::closeQuietly));
    }

    @Override
    public CompletableFuture<Optional<MultiLease>> tryAcquireAllAsync(MultiLockSpec spec) {
        return multi.acquireAsync(spec, false);
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
        return new LockView(views, arguments.key(key), LockMode.EXCLUSIVE);
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
        return new LockView(views, key, spec.lockMode(), spec.explicitLease());
    }

    @Override
    public ReadWriteLock readWriteLock(String key) {
        String checked = arguments.key(key);
        return new ReadWriteLockView(new LockView(views, checked, LockMode.SHARED),
                new LockView(views, checked, LockMode.EXCLUSIVE));
    }

    // ---- semaphores ----------------------------------------------------------------------

    /**
     * A native semaphore when the backend keeps permits ({@link LockBackend#supportsPermits()}),
     * else the slot fallback built on exclusive locks.
     */
    @Override
    public LockSemaphore semaphore(String name, int permits) {
        return backend.supportsPermits() ? Semaphores.nativeSemaphore(permitHolds, name, permits)
                : Semaphores.slotSemaphore(this, name, permits);
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
        return inspector.inspect(key);
    }

    @Override
    public dev.mortise.lock.DeadlockReport deadlocks() {
        return acquirer.deadlocks();
    }

    @Override
    public void ping() {
        inspector.ping();
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
        return inspector.heldLocks();
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
        async.close();
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
