package dev.mortise.lock;

import dev.mortise.lock.spi.BackendGuarantees;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * A {@link LockClient} that forwards every call to a delegate. Subclass it to wrap a client (a
 * test client with extra helpers, a client that records what it is asked) and override only what
 * the wrapper changes: every other method, including ones added to {@link LockClient} later,
 * reaches the wrapped client without an edit to the subclass.
 *
 * <p>Every abstract method of {@link LockClient} is forwarded (a test in lock-api fails when one
 * is not). The default methods are not: they are written in terms of the others, so they pass
 * through the wrapper ({@link #leadership} contends through this client's {@code acquire},
 * {@code acquireAll(keys, wait)} through {@link #acquireAll(MultiLockSpec)}). A call forwarded
 * whole is the delegate's own: the parts of a multi-key lock, a semaphore's permits and the
 * acquires of a {@link Lock} view are taken by the delegate, not through this wrapper's
 * {@link #acquire(LockSpec)}.
 *
 * <p>Thread-safe if the delegate is. {@link #close()} closes the delegate.
 */
public abstract class ForwardingLockClient implements LockClient {

    private final LockClient delegate;

    /** @param delegate the client every call goes to */
    protected ForwardingLockClient(LockClient delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate: the client this one wraps");
    }

    /** The wrapped client. */
    protected LockClient delegate() {
        return delegate;
    }

    @Override
    public LockLease acquire(String key, Duration wait) {
        return delegate.acquire(key, wait);
    }

    @Override
    public LockLease acquire(LockSpec spec) {
        return delegate.acquire(spec);
    }

    @Override
    public Optional<LockLease> tryAcquire(String key) {
        return delegate.tryAcquire(key);
    }

    @Override
    public Optional<LockLease> tryAcquire(String key, Duration wait) {
        return delegate.tryAcquire(key, wait);
    }

    @Override
    public Optional<LockLease> tryAcquire(LockSpec spec) {
        return delegate.tryAcquire(spec);
    }

    @Override
    public java.util.concurrent.CompletableFuture<LockLease> acquireAsync(LockSpec spec) {
        return delegate.acquireAsync(spec);
    }

    @Override
    public java.util.concurrent.CompletableFuture<Optional<LockLease>> tryAcquireAsync(LockSpec spec) {
        return delegate.tryAcquireAsync(spec);
    }

    @Override
    public MultiLease acquireAll(MultiLockSpec spec) {
        return delegate.acquireAll(spec);
    }

    @Override
    public Optional<MultiLease> tryAcquireAll(MultiLockSpec spec) {
        return delegate.tryAcquireAll(spec);
    }

    @Override
    public java.util.concurrent.CompletableFuture<MultiLease> acquireAllAsync(MultiLockSpec spec) {
        return delegate.acquireAllAsync(spec);
    }

    @Override
    public java.util.concurrent.CompletableFuture<Optional<MultiLease>> tryAcquireAllAsync(MultiLockSpec spec) {
        return delegate.tryAcquireAllAsync(spec);
    }

    @Override
    public <T, X extends Throwable> T call(String key, Duration wait, LockCallable<T, X> work) throws X {
        return delegate.call(key, wait, work);
    }

    @Override
    public <X extends Throwable> void run(String key, Duration wait, LockRunnable<X> work) throws X {
        delegate.run(key, wait, work);
    }

    @Override
    public Lock asLock(String key) {
        return delegate.asLock(key);
    }

    @Override
    public Lock asLock(LockSpec spec) {
        return delegate.asLock(spec);
    }

    @Override
    public ReadWriteLock readWriteLock(String key) {
        return delegate.readWriteLock(key);
    }

    @Override
    public boolean forceRelease(String key) {
        return delegate.forceRelease(key);
    }

    @Override
    public LockInspection inspect(String key) {
        return delegate.inspect(key);
    }

    @Override
    public void ping() {
        delegate.ping();
    }

    @Override
    public String backendName() {
        return delegate.backendName();
    }

    @Override
    public BackendGuarantees guarantees() {
        return delegate.guarantees();
    }

    @Override
    public Duration shortestLease() {
        return delegate.shortestLease();
    }

    @Override
    public LockSemaphore semaphore(String name, int permits) {
        return delegate.semaphore(name, permits);
    }

    @Override
    public List<HeldLock> heldLocks() {
        return delegate.heldLocks();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
