package dev.mortise.lock.internal;

import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * {@link Lock} over one key in one mode, owned by threads. Every view of one key and mode in one
 * client is the same lock ({@code asLock(key)} and {@code readWriteLock(key).writeLock()} too): a
 * thread's leases taken through any of them stack up in the client, per thread, key and mode, and
 * {@code unlock()} through any of them closes the thread's innermost one. The shared and the
 * exclusive view of a key are the two halves of one read-write lock. A view made from a
 * {@code LockSpec} ({@code asLock(spec)}) asks for the spec's explicit lease when it takes the key
 * afresh; nested in the thread's current hold it joins that hold, whatever lease it asks for.
 */
final class LockView implements Lock {

    private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

    private final LockViews views;
    private final String key;
    private final LockMode mode;
    /** The explicit lease a fresh hold is asked for, or null: the client's default, renewed. */
    private final Duration explicitLease;

    LockView(LockViews views, String key, LockMode mode) {
        this(views, key, mode, null);
    }

    LockView(LockViews views, String key, LockMode mode, Duration explicitLease) {
        this.views = views;
        this.key = key;
        this.mode = mode;
        this.explicitLease = explicitLease;
    }

    @Override
    public void lock() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    LockLease lease = views.acquire(key, FOREVER, explicitLease, mode, true);
                    views.leases(key, mode).push(lease);
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
            LockLease lease = views.acquire(key, FOREVER, explicitLease, mode, true);
            views.leases(key, mode).push(lease);
        } catch (LockInterruptedException e) {
            Thread.interrupted();
            throw (InterruptedException) e.getCause();
        }
    }

    @Override
    public boolean tryLock() {
        return push(views.acquire(key, Duration.ZERO, explicitLease, mode, false));
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before locking '" + key + "'");
        }
        try {
            Duration wait = Duration.ofNanos(Math.max(0, unit.toNanos(time)));
            return push(views.acquire(key, wait, explicitLease, mode, false));
        } catch (LockInterruptedException e) {
            Thread.interrupted();
            throw (InterruptedException) e.getCause();
        }
    }

    private boolean push(LockLease lease) {
        if (lease != null) {
            views.leases(key, mode).push(lease);
        }
        return lease != null;
    }

    @Override
    public void unlock() {
        LockLease lease = views.leases(key, mode).poll();
        views.leasesDone(key, mode);
        if (lease == null) {
            throw new IllegalMonitorStateException("Thread " + Thread.currentThread().getName()
                    + " does not hold lock '" + key + "' (backend '" + views.backendName() + "')"
                    + (mode == LockMode.SHARED ? " shared through a read lock view" : " through a Lock view")
                    + " of this client; unlock on the thread that locked");
        }
        lease.close();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed locks have no conditions (lock '" + key + "', backend '"
                + views.backendName() + "'); wait on the data itself, or use a queue");
    }

    @Override
    public String toString() {
        return "Lock[" + key + " on " + views.backendName() + (mode == LockMode.SHARED ? ", shared" : "")
                + (explicitLease != null ? ", lease " + explicitLease : "") + "]";
    }
}
