package dev.mortise.lock.internal;

import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * {@link Lock} over one key, owned by threads. Every view of one key in one client is the
 * same lock: a thread's leases taken through any of them stack up in the client, per thread
 * and key, and {@code unlock()} through any of them closes the thread's innermost one.
 */
final class LockView implements Lock {

    private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

    private final DefaultLockClient client;
    private final String key;

    LockView(DefaultLockClient client, String key) {
        this.client = client;
        this.key = key;
    }

    @Override
    public void lock() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    LockLease lease = client.acquire(key, FOREVER);
                    client.viewLeases(key).push(lease);
                    return;
                } catch (LockInterruptedException e) {
                    // lock() is not interruptible: remember it, keep waiting, restore it after.
                    Thread.interrupted();
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before locking '" + key + "'");
        }
        try {
            LockLease lease = client.acquire(key, FOREVER);
            client.viewLeases(key).push(lease);
        } catch (LockInterruptedException e) {
            Thread.interrupted();
            throw (InterruptedException) e.getCause();
        }
    }

    @Override
    public boolean tryLock() {
        return push(client.tryAcquire(key));
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before locking '" + key + "'");
        }
        try {
            return push(client.tryAcquire(key, Duration.ofNanos(Math.max(0, unit.toNanos(time)))));
        } catch (LockInterruptedException e) {
            Thread.interrupted();
            throw (InterruptedException) e.getCause();
        }
    }

    private boolean push(Optional<LockLease> lease) {
        lease.ifPresent(l -> client.viewLeases(key).push(l));
        return lease.isPresent();
    }

    @Override
    public void unlock() {
        LockLease lease = client.viewLeases(key).poll();
        client.viewLeasesDone(key);
        if (lease == null) {
            throw new IllegalMonitorStateException("Thread " + Thread.currentThread().getName()
                    + " does not hold lock '" + key + "' (backend '" + client.backendName() + "') through a Lock view "
                    + "of this client; unlock on the thread that locked");
        }
        lease.close();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed locks have no conditions (lock '" + key + "', backend '"
                + client.backendName() + "'); wait on the data itself, or use a queue");
    }

    @Override
    public String toString() {
        return "Lock[" + key + " on " + client.backendName() + "]";
    }
}
