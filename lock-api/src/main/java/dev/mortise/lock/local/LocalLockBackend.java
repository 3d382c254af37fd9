package dev.mortise.lock.local;

import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;
import dev.mortise.lock.spi.Ticker;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The in-process backend ({@code "local"}): locks within one JVM with the full contract —
 * leases, fencing, wake-up on release, shared (read) locks with writer preference. For tests of code that uses Mortise, and for
 * single-instance deployments. Backends built on one {@link LocalLockServer} contend as
 * separate processes would on one server.
 *
 * <pre>{@code
 * LockClient locks = LockClient.builder(LocalLockBackend.create()).build();
 * }</pre>
 *
 * Leases run on the server's {@link Ticker} ({@link LocalLockServer#LocalLockServer(String, Ticker)}),
 * real time unless a test passes a ticker it moves by hand (the {@code lock-test} artifact does).
 */
public final class LocalLockBackend implements LockBackend {

    private static final BackendGuarantees GUARANTEES = new BackendGuarantees(
            BackendGuarantees.LeaseModel.TIME_BOUND, false, BackendGuarantees.Wakeup.PUSH,
            "A per-key counter in the LocalLockServer's memory: strictly increasing for as long as that object lives; "
                    + "it restarts with a new server object (a new JVM).",
            Duration.ofMillis(1));

    private final LocalLockServer server;

    /** A backend on a server of its own. */
    public static LocalLockBackend create() {
        return new LocalLockBackend(new LocalLockServer());
    }

    /** A backend on a shared server. */
    public LocalLockBackend(LocalLockServer server) {
        this.server = Objects.requireNonNull(server, "server");
    }

    public LocalLockServer server() {
        return server;
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public BackendGuarantees guarantees() {
        return GUARANTEES;
    }

    @Override
    public Optional<dev.mortise.lock.spi.WaitRecords> waitRecords() {
        return Optional.of(server.waitRecords());
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return server.tryAcquire(request);
    }

    /** Natively: every part is tried under one acquisition of the server's lock, so no other request sees a part of it. */
    @Override
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        return server.tryAcquireAll(requests);
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        return server.acquire(request, wait);
    }

    /**
     * Natively, without a thread per waiter: the request queues on the server with the blocking
     * waiters, in arrival order and with writer preference, and is let in by the release, expiry or
     * ticker jump that frees the key (see {@link LocalLockServer#acquireAsync}).
     */
    @Override
    public java.util.concurrent.CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        return server.acquireAsync(request, wait);
    }

    /** The server's ticker: grants are stamped, and leases judged, on it. */
    @Override
    public Ticker ticker() {
        return server.ticker();
    }

    @Override
    public boolean supportsSharedMode() {
        return true;
    }

    /** Native semaphores, waiters served in arrival order: see {@link LocalLockServer}. */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    @Override
    public void setPermits(String key, int limit) {
        server.setPermits(key, limit);
    }

    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        return server.renew(grant, lease) ? Optional.of(lease) : Optional.empty();
    }

    /** Renews under one acquisition of the server's lock; the server applies the lease asked for. */
    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        return Renewals.of(server.renewAll(grants, lease), lease);
    }

    @Override
    public boolean release(Grant grant) {
        return server.release(grant);
    }

    /**
     * The server's record of {@code key}: the live exclusive holder or readers, each with its token
     * and its lease left by the server's clock, and the number of requests waiting in
     * {@link #acquire} on that server (those of every backend sharing it).
     */
    @Override
    public KeyState inspect(String key) {
        return server.inspect(key);
    }

    @Override
    public void ping() {
        server.ping();
    }

    @Override
    public void close() {
        // Nothing to close: the server belongs to whoever made it.
    }
}
