package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link LockBackend} that forwards every call, default methods included, to a delegate.
 * Subclass it to decorate a backend (count calls, inject faults, rename it, stall it) and
 * override only what the decoration changes: every other method, including SPI methods added
 * later, reaches the wrapped backend without an edit to the subclass. A wrapper that implements
 * {@link LockBackend} directly silently falls back to the interface's defaults for any method it
 * forgets (no shared mode, no native batch, polling instead of the server's wake-ups, the
 * system ticker instead of the wrapped one's), which is exactly the bug this class prevents.
 *
 * <p>This class forwards every method of {@link LockBackend}; a test in lock-api fails when a
 * method of the interface is not overridden here. Thread-safe if the delegate is. {@link #close()}
 * closes the delegate: a decorator that must not close what it wraps overrides it.
 */
public abstract class ForwardingLockBackend implements LockBackend {

    private final LockBackend delegate;

    /** @param delegate the backend every call goes to */
    protected ForwardingLockBackend(LockBackend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate: the backend this one decorates");
    }

    /** The wrapped backend. */
    public LockBackend delegate() {
        return delegate;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public BackendGuarantees guarantees() {
        return delegate.guarantees();
    }

    @Override
    public boolean supportsSharedMode() {
        return delegate.supportsSharedMode();
    }

    @Override
    public boolean supportsPermits() {
        return delegate.supportsPermits();
    }

    @Override
    public void setPermits(String key, int limit) {
        delegate.setPermits(key, limit);
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return delegate.tryAcquire(request);
    }

    @Override
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        return delegate.tryAcquireAll(requests);
    }

    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        return delegate.acquire(request, wait);
    }

    /**
     * The wrapped backend's asynchronous wait. A decorator that overrides {@link #acquire} or
     * {@link #tryAcquire} overrides this too when asynchronous waits must pass through its versions.
     */
    @Override
    public java.util.concurrent.CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        return delegate.acquireAsync(request, wait);
    }

    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        return delegate.renew(grant, lease);
    }

    @Override
    public Ticker ticker() {
        return delegate.ticker();
    }

    @Override
    public Duration validity(Duration lease) {
        return delegate.validity(lease);
    }

    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        return delegate.renewAll(grants, lease);
    }

    @Override
    public boolean linger(Grant grant, Duration linger) {
        return delegate.linger(grant, linger);
    }

    @Override
    public boolean release(Grant grant) {
        return delegate.release(grant);
    }

    @Override
    public KeyState inspect(String key) {
        return delegate.inspect(key);
    }

    @Override
    public java.util.Optional<WaitRecords> waitRecords() {
        return delegate.waitRecords();
    }

    @Override
    public void addGrantListener(GrantListener listener) {
        delegate.addGrantListener(listener);
    }

    @Override
    public void ping() {
        delegate.ping();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}
