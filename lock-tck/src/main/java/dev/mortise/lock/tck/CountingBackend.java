package dev.mortise.lock.tck;

import dev.mortise.lock.spi.ForwardingLockBackend;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Delegates to a real backend and counts the calls, so tests can see which operations reach the server.
 * Everything not counted here is forwarded unchanged by {@link ForwardingLockBackend}.
 */
public final class CountingBackend extends ForwardingLockBackend {

    /** Calls to tryAcquire plus calls to acquire plus calls to tryAcquireAll (one per batch, whatever its size). */
    public final AtomicInteger acquireCalls = new AtomicInteger();
    /** Calls to tryAcquireAll (also counted in {@link #acquireCalls}), answered natively or not. */
    public final AtomicInteger batchCalls = new AtomicInteger();
    public final AtomicInteger renewCalls = new AtomicInteger();
    public final AtomicInteger releaseCalls = new AtomicInteger();

    public CountingBackend(LockBackend delegate) {
        super(delegate);
    }

    @Override
    public dev.mortise.lock.spi.Attempt tryAcquire(LockRequest request) {
        acquireCalls.incrementAndGet();
        return super.tryAcquire(request);
    }

    /**
     * Counted in {@link #acquireCalls} as one request however many keys it carries, when it reached the
     * server; a {@code null} answer (no native batch: nothing was sent) is counted in {@link #batchCalls} only.
     */
    @Override
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        batchCalls.incrementAndGet();
        List<Grant> grants;
        try {
            grants = super.tryAcquireAll(requests);
        } catch (RuntimeException e) {
            acquireCalls.incrementAndGet();
            throw e;
        }
        if (grants != null) {
            acquireCalls.incrementAndGet();
        }
        return grants;
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        acquireCalls.incrementAndGet();
        return super.acquire(request, wait);
    }

    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        renewCalls.incrementAndGet();
        return super.renew(grant, lease);
    }

    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        renewCalls.incrementAndGet();
        return super.renewAll(grants, lease);
    }

    @Override
    public boolean release(Grant grant) {
        releaseCalls.incrementAndGet();
        return super.release(grant);
    }
}
