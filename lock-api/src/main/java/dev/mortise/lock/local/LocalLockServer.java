package dev.mortise.lock.local;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-memory lock server: what several {@link LocalLockBackend}s share to behave like
 * separate processes talking to one server. Real leases (judged by this server's clock),
 * a fencing counter per key that is never reset, and waiters woken on release.
 *
 * <p>Thread-safe. Its state lives as long as the object: fencing tokens restart if it is
 * discarded. The test hooks {@link #forget}, {@link #stop} and {@link #start} let tests
 * break holds and the "network" on purpose.
 */
public final class LocalLockServer {

    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Entry> entries = new HashMap<>(); // guarded by lock
    private volatile boolean down;

    private static final class Entry {
        String owner;
        long expiresAtNanos;
        long token;
        final Condition released;

        Entry(Condition released) {
            this.released = released;
        }

        boolean heldAt(long now) {
            return owner != null && now - expiresAtNanos < 0;
        }
    }

    public LocalLockServer() {
        this("local");
    }

    /** @param name shown in error messages */
    public LocalLockServer(String name) {
        this.name = name;
    }

    Attempt tryAcquire(LockRequest request) {
        long requestedAt = System.nanoTime();
        lock.lock();
        try {
            checkUp(request.key());
            return attemptLocked(request, requestedAt);
        } finally {
            lock.unlock();
        }
    }

    Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        long requestedAt = System.nanoTime();
        long deadline = Deadlines.after(requestedAt, wait);
        lock.lockInterruptibly();
        try {
            while (true) {
                checkUp(request.key());
                Attempt attempt = attemptLocked(request, requestedAt);
                if (attempt.isGranted()) {
                    return attempt.grant();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                long holder = attempt.holderRemaining().map(Duration::toNanos).orElse(left);
                entries.get(request.key()).released.awaitNanos(Math.min(left, holder + 1));
                requestedAt = System.nanoTime();
            }
        } finally {
            lock.unlock();
        }
    }

    private Attempt attemptLocked(LockRequest request, long requestedAt) {
        Entry entry = entries.computeIfAbsent(request.key(), k -> new Entry(lock.newCondition()));
        long now = System.nanoTime();
        if (entry.heldAt(now) && !entry.owner.equals(request.owner())) {
            return Attempt.busy(Duration.ofNanos(entry.expiresAtNanos - now));
        }
        if (!request.owner().equals(entry.owner)) {
            entry.token++;
            entry.owner = request.owner();
        }
        entry.expiresAtNanos = now + request.lease().toNanos();
        return Attempt.granted(new Grant(request.key(), request.owner(), entry.token, requestedAt, null));
    }

    boolean renew(Grant grant, Duration lease) {
        lock.lock();
        try {
            checkUp(grant.key());
            Entry entry = entries.get(grant.key());
            long now = System.nanoTime();
            if (entry == null || !entry.heldAt(now) || !grant.owner().equals(entry.owner)) {
                return false;
            }
            entry.expiresAtNanos = now + lease.toNanos();
            return true;
        } finally {
            lock.unlock();
        }
    }

    boolean release(Grant grant) {
        lock.lock();
        try {
            checkUp(grant.key());
            Entry entry = entries.get(grant.key());
            if (entry == null || !grant.owner().equals(entry.owner)) {
                return false;
            }
            boolean wasHeld = entry.heldAt(System.nanoTime());
            entry.owner = null;
            entry.released.signalAll();
            return wasHeld;
        } finally {
            lock.unlock();
        }
    }

    void ping() {
        checkUp("(ping)");
    }

    /** Test hook: drops the hold on {@code key}, as if it had expired; waiters are woken. */
    public void forget(String key) {
        lock.lock();
        try {
            Entry entry = entries.get(key);
            if (entry != null) {
                entry.owner = null;
                entry.released.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether someone holds {@code key} now (for tests: nothing left behind). */
    public boolean isHeld(String key) {
        lock.lock();
        try {
            Entry entry = entries.get(key);
            return entry != null && entry.heldAt(System.nanoTime());
        } finally {
            lock.unlock();
        }
    }

    /** Test hook: every operation fails with {@link LockBackendException} until {@link #start()}. */
    public void stop() {
        down = true;
    }

    /** Test hook: undoes {@link #stop()}. */
    public void start() {
        down = false;
    }

    private void checkUp(String key) {
        if (down) {
            throw new LockBackendException("Local lock server '" + name + "' is stopped (lock '" + key
                    + "', backend 'local'); call LocalLockServer.start()", key, "local", null);
        }
    }

    @Override
    public String toString() {
        return "LocalLockServer[" + name + "]";
    }
}
