package dev.mortise.lock.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * A real in-process backend with knobs a test turns: renewals that fail, a server that keeps
 * the lease it granted whatever a renewal asks for (as an etcd lease does), a validity bound,
 * an acquire that stalls until let go.
 */
class ScriptedBackend implements LockBackend {

    final LocalLockBackend local;
    volatile boolean renewalsFail;
    /** Non-null: renewals apply the lease the hold was granted with, not the one asked for. */
    volatile boolean keepsGrantedLease;
    volatile UnaryOperator<Duration> validity = lease -> lease;
    volatile CountDownLatch acquireGate;
    final CountDownLatch acquireReachedServer = new CountDownLatch(1);
    final AtomicInteger renewCalls = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    volatile GrantListener listener;
    /** Runs before each release reaches the server (a release that takes time: the test moves its ticker). */
    volatile java.util.function.Consumer<Grant> beforeRelease = grant -> { };
    /** How many of the next grants arrive after their lease ran out (a round trip stalled that long). */
    final AtomicInteger lateGrants = new AtomicInteger();
    /**
     * How many of the next grants arrive with only {@link #slowGrantLeft} of their lease left (a
     * round trip that took most of the lease, but not all of it).
     */
    final AtomicInteger slowGrants = new AtomicInteger();
    volatile Duration slowGrantLeft = Duration.ofMillis(200);
    private final java.util.Map<String, Duration> grantedLeases = new java.util.concurrent.ConcurrentHashMap<>();

    ScriptedBackend(LocalLockServer server) {
        this.local = new LocalLockBackend(server);
    }

    ScriptedBackend() {
        this(new LocalLockServer());
    }

    @Override
    public String name() {
        return "scripted";
    }

    @Override
    public dev.mortise.lock.spi.Ticker ticker() {
        return local.ticker();
    }

    @Override
    public BackendGuarantees guarantees() {
        BackendGuarantees g = local.guarantees();
        return new BackendGuarantees(g.leaseModel(), g.fair(), g.wakeup(), g.fencing(), minimumLease);
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        Attempt attempt = local.tryAcquire(request);
        attempt.grant().ifPresent(g -> grantedLeases.put(g.owner(), request.lease()));
        stall();
        return attempt.grant().isPresent() ? Attempt.granted(late(attempt.grant().get(), request)) : attempt;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        Optional<Grant> grant = local.acquire(request, wait);
        grant.ifPresent(g -> grantedLeases.put(g.owner(), request.lease()));
        stall();
        return grant.map(g -> late(g, request));
    }

    /** The grant as if its request had been sent a lease and a bit ago, while {@link #lateGrants} lasts. */
    private Grant late(Grant grant, LockRequest request) {
        if (slowGrants.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            long sentAt = System.nanoTime() - request.lease().minus(slowGrantLeft).toNanos();
            return new Grant(grant.key(), grant.owner(), grant.fencingToken(), sentAt, grant.state());
        }
        if (lateGrants.getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
            return grant;
        }
        long sentAt = System.nanoTime() - request.lease().toNanos() - Duration.ofMillis(50).toNanos();
        return new Grant(grant.key(), grant.owner(), grant.fencingToken(), sentAt, grant.state());
    }

    private void stall() {
        CountDownLatch gate = acquireGate;
        if (gate != null) {
            acquireReachedServer.countDown();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public java.util.Optional<Duration> renew(Grant grant, Duration lease) {
        renewCalls.incrementAndGet();
        if (renewalsFail) {
            throw new LockBackendException("renewal failed (scripted)", grant.key(), name(), null);
        }
        Duration granted = grantedLeases.get(grant.owner());
        Duration applied = keepsGrantedLease && granted != null ? granted : lease;
        return local.renew(grant, applied).map(renewed -> applied);
    }

    /** The shortest lease this backend says it honours (etcd's is a second). */
    volatile Duration minimumLease = Duration.ofMillis(1);

    @Override
    public Duration validity(Duration lease) {
        return validity.apply(lease);
    }

    @Override
    public boolean release(Grant grant) {
        releases.incrementAndGet();
        beforeRelease.accept(grant);
        return local.release(grant);
    }

    @Override
    public void addGrantListener(GrantListener listener) {
        this.listener = listener;
    }

    @Override
    public dev.mortise.lock.spi.KeyState inspect(String key) {
        return local.inspect(key);
    }

    @Override
    public void ping() {
    }

    @Override
    public void close() {
    }
}
