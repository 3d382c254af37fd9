package dev.mortise.lock.test;

import dev.mortise.lock.ForwardingLockClient;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockClientBuilder;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockListener;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.KeyState;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link LockClient} for tests of code that uses Mortise: the full contract over an
 * in-process server, on a {@link ManualTicker} that moves only when the test says so, with
 * helpers that expire, steal or lose a lease on demand. Pass it wherever your code takes a
 * {@code LockClient}; get one from {@link MortiseLockExtension} (closed after each test) or
 * {@link #create()} (close it yourself).
 *
 * <p><b>Time.</b> Lease time — lease ends, local validity, renewals, {@code closeLingering} —
 * runs on the ticker: it stands still until {@link #advance}. Waiting for a lock stays real:
 * {@code acquire(key, Duration.ofSeconds(5))} on a key held elsewhere gives up after five real
 * seconds, so a test never hangs for good.
 *
 * <p><b>Every helper takes effect before it returns.</b> When {@link #advance}, {@link #expire},
 * {@link #steal} or {@link #lose} returns, the leases it ended report {@code isValid() == false}
 * and their {@code onLost} callbacks have run (a callback that blocks is waited for up to 10
 * seconds). No sleeping. To wait for a loss your code causes some other way, use
 * {@link #awaitLost}.
 *
 * <p>Every {@link LockClient} method is the inner client's, a production client on the in-process
 * server ({@link ForwardingLockClient}): multi-key locks take its batched fast path, semaphores
 * are native there.
 *
 * <p>Thread-safe, like every {@code LockClient}. Do not move time from inside an
 * {@code onLost} callback (the move waits for the callbacks).
 */
public final class TestLockClient extends ForwardingLockClient {

    /** The default lease of renewed holds: 30 seconds, as in production. */
    public static final Duration DEFAULT_LEASE = LockClientBuilder.DEFAULT_LEASE;
    /** How long {@link #awaitLost(LockLease)} waits (real time) before it fails the test. */
    public static final Duration AWAIT_LOST_TIMEOUT = Duration.ofSeconds(10);

    private final ManualTicker ticker;
    private final ControlledBackend backend;
    private final Duration defaultLease;
    private final Builder settings;

    private TestLockClient(Builder settings, ManualTicker ticker, ControlledBackend backend) {
        super(newClient(settings, ticker, backend));
        this.settings = settings;
        this.ticker = ticker;
        this.backend = backend;
        this.defaultLease = settings.defaultLease;
    }

    private static LockClient newClient(Builder settings, ManualTicker ticker, ControlledBackend backend) {
        LockClientBuilder builder = LockClient.builder(backend).defaultLease(settings.defaultLease)
                .clockDrift(settings.driftFactor, settings.driftAllowance).ticker(ticker);
        settings.listeners.forEach(builder::listener);
        return builder.build();
    }

    /** A client with the defaults (30 s lease, renewed) on a server and ticker of its own. */
    public static TestLockClient create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Another client on the same server and ticker, with the same settings: another process
     * contending for the same keys. Moving time through either moves both, and the helpers of
     * either act on the one server: {@link #expire}, {@link #steal} and {@link #lose} tell the
     * holder whichever client it is, {@link #failRenewals} fails the renewals of all. Close it
     * yourself (closing one client leaves the other and the server as they are).
     */
    public TestLockClient anotherClient() {
        return new TestLockClient(settings, ticker, backend);
    }

    // ---- time and faults ----------------------------------------------------------------

    /** The ticker lease time runs on (shared with {@link #anotherClient()}s). */
    public ManualTicker ticker() {
        return ticker;
    }

    /** The in-process server (its test hooks: {@code stop()}, {@code start()}, {@code isHeld(key)}). */
    public LocalLockServer server() {
        return backend.server();
    }

    /**
     * Moves lease time forward; see {@link ManualTicker#advance}. Leases without renewal (an
     * explicit lease time, a {@code closeLingering} hold, renewals failing) that run out are lost
     * with {@link LostReason#EXPIRED}, their {@code onLost} callbacks run before this returns;
     * renewed leases are renewed on the way and stay valid.
     */
    public void advance(Duration duration) {
        ticker.advance(duration);
    }

    /**
     * The server drops every hold of {@code key} as if its lease ran out, and tells each holder
     * on this server at once: their leases are lost with {@link LostReason#EXPIRED} before this
     * returns. The key is free afterwards; its fencing counter goes on.
     *
     * @return how many holds were dropped (0 if nobody held it)
     */
    public int expire(String key) {
        int dropped = backend.dropAll(checkKey(key), LostReason.EXPIRED);
        ticker.settle();
        return dropped;
    }

    /**
     * Another owner takes {@code key} with a new, higher fencing token, for the client's
     * default lease (on the ticker). Every hold of it ends and its holder is told at once: their
     * leases are lost with {@link LostReason#RENEWAL_REJECTED} (what a renewal would have
     * found) before this returns. Works whether or not the key was held.
     */
    public StolenLock steal(String key) {
        return steal(key, defaultLease);
    }

    /** As {@link #steal(String)}, with the new owner's lease ({@link StolenLock#release()} ends it sooner). */
    public StolenLock steal(String key, Duration lease) {
        checkKey(key);
        if (lease == null || lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("steal('" + key + "') needs a positive lease, was " + lease);
        }
        StolenLock stolen = new StolenLock(backend.seize(key, lease), backend);
        ticker.settle();
        return stolen;
    }

    /** Ends {@code lease}'s hold on the server as if another owner deleted it: lost with {@link LostReason#RENEWAL_REJECTED}. */
    public void lose(LockLease lease) {
        lose(lease, LostReason.RENEWAL_REJECTED);
    }

    /**
     * Ends {@code lease}'s hold on the server, and only that one, for {@code reason}: the holder
     * is told at once, its {@code onLost} callbacks run before this returns. Other holds of the
     * key (other readers) are untouched.
     *
     * @param reason {@link LostReason#EXPIRED}, {@link LostReason#RENEWAL_REJECTED} or
     *               {@link LostReason#SESSION_LOST}: what a server can do to a hold
     * @throws IllegalArgumentException if the lease's hold is no longer on the server (closed,
     *                                  lost, expired), or for another reason
     */
    public void lose(LockLease lease, LostReason reason) {
        Objects.requireNonNull(lease, "lease");
        if (reason != LostReason.EXPIRED && reason != LostReason.RENEWAL_REJECTED
                && reason != LostReason.SESSION_LOST) {
            throw new IllegalArgumentException("lose(" + lease + ", " + reason + "): a server ends a hold with EXPIRED, "
                    + "RENEWAL_REJECTED or SESSION_LOST; " + reason + " comes from the client itself "
                    + "(forceRelease, close)");
        }
        if (!backend.drop(lease.key(), lease.fencingToken(), reason)) {
            throw new IllegalArgumentException("lose(" + lease + "): the server holds no hold of '" + lease.key()
                    + "' with token " + lease.fencingToken() + " (closed, lost or expired already)");
        }
        ticker.settle();
    }

    /**
     * Makes every renewal (of every client on this server) fail as if the server could not be reached (a
     * {@link dev.mortise.lock.LockBackendException}), or ends that. Acquires and releases still
     * work. Renewed leases then run out on {@link #advance}: lost with {@link LostReason#EXPIRED}
     * once their validity passes, the renewal failure as the cause.
     */
    public void failRenewals(boolean fail) {
        backend.failRenewals(fail);
    }

    /**
     * Makes the whole server unreachable (every acquire, renewal and release fails with a
     * {@link dev.mortise.lock.LockBackendException}), or reachable again.
     */
    public void serverUnreachable(boolean unreachable) {
        if (unreachable) {
            backend.server().stop();
        } else {
            backend.server().start();
        }
    }

    // ---- reading the server -------------------------------------------------------------

    /**
     * The holds of {@code key} the server honours now (on the ticker), lowest token first:
     * at most one exclusive hold, or any number of shared ones. Empty when the key is free.
     */
    public List<KeyHolder> holders(String key) {
        KeyState state = backend.holders(checkKey(key));
        List<KeyHolder> result = new ArrayList<>();
        for (KeyState.Holder h : state.holders()) {
            result.add(new KeyHolder(key, h.owner(), h.fencingToken().orElse(-1), state.mode(),
                    h.remaining().orElse(Duration.ZERO), ControlledBackend.isThief(h.owner())));
        }
        result.sort(Comparator.comparingLong(KeyHolder::fencingToken));
        return result;
    }

    /** The newest hold of {@code key} (the exclusive holder, or the latest reader), if any. */
    public Optional<KeyHolder> holder(String key) {
        List<KeyHolder> all = holders(key);
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /** The fencing token of the newest hold of {@code key}, or empty when the key is free. */
    public OptionalLong fencingToken(String key) {
        return holder(key).map(h -> OptionalLong.of(h.fencingToken())).orElse(OptionalLong.empty());
    }

    /**
     * Waits (real time, at most {@link #AWAIT_LOST_TIMEOUT}) until {@code lease} is lost and returns
     * the loss; at once if it already is. For losses the helpers did not cause (your code closed
     * the client, a loss found on another thread).
     *
     * @throws AssertionError if it was not lost in time (the test fails, naming the lease)
     */
    public LockLostEvent awaitLost(LockLease lease) {
        return awaitLost(lease, AWAIT_LOST_TIMEOUT);
    }

    /** As {@link #awaitLost(LockLease)}, waiting at most {@code timeout}. */
    public LockLostEvent awaitLost(LockLease lease, Duration timeout) {
        CompletableFuture<LockLostEvent> lost = new CompletableFuture<>();
        lease.onLost(lost::complete);
        try {
            return lost.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(lease + " was not lost within " + timeout + " (valid: " + lease.isValid() + ")");
        } catch (ExecutionException e) {
            throw new AssertionError("onLost of " + lease + " failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + lease + " to be lost", e);
        }
    }

    private static String checkKey(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("key must not be null or blank, was " + key);
        }
        return key;
    }

    /** Closes the client (its open leases are lost with {@code CLIENT_CLOSED}); the server and ticker stay. */
    @Override
    public void close() {
        super.close();
    }

    @Override
    public String toString() {
        return "TestLockClient[" + ticker + ", " + delegate() + "]";
    }

    /** Settings of a {@link TestLockClient}. Not thread-safe. */
    public static final class Builder {

        private Duration defaultLease = DEFAULT_LEASE;
        private double driftFactor = 0.01;
        private Duration driftAllowance = Duration.ofMillis(2);
        private final List<LockListener> listeners = new ArrayList<>();

        private Builder() {
        }

        /** The lease of renewed holds (default 30 s); see {@link LockClientBuilder#defaultLease}. */
        public Builder defaultLease(Duration lease) {
            this.defaultLease = Objects.requireNonNull(lease, "lease");
            return this;
        }

        /** See {@link LockClientBuilder#clockDrift}; defaults 0.01 and 2 ms, as in production. */
        public Builder clockDrift(double factor, Duration allowance) {
            this.driftFactor = factor;
            this.driftAllowance = allowance;
            return this;
        }

        /** Adds a listener for lock events (see {@link LockClientBuilder#listener}). */
        public Builder listener(LockListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** A client on a new server and a new {@link ManualTicker}. */
        public TestLockClient build() {
            ManualTicker ticker = new ManualTicker();
            Builder copy = new Builder();
            copy.defaultLease = defaultLease;
            copy.driftFactor = driftFactor;
            copy.driftAllowance = driftAllowance;
            copy.listeners.addAll(listeners);
            return new TestLockClient(copy, ticker, new ControlledBackend(new LocalLockServer("lock-test", ticker)));
        }
    }
}
