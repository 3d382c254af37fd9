package dev.mortise.lock.integration;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LostReason;
import org.springframework.integration.support.locks.DistributedLock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The lock of one key in a {@link MortiseLockRegistry}: owned by threads and reentrant. Each
 * {@code lock}/{@code tryLock} that succeeds opens a Mortise lease (nested ones share the
 * server hold and fencing token) and pushes it on the calling thread's stack; {@link #unlock()}
 * closes the thread's innermost one, and throws {@link IllegalMonitorStateException} if the
 * thread has none. A hold lost meanwhile makes {@code unlock()} throw
 * {@link LockLostException} (the lease is closed all the same).
 *
 * <p>A lost hold is not re-entered: once the calling thread's hold is no longer valid (expired,
 * lost on the server, force-released), its next {@code tryLock} returns {@code false} and its next
 * {@code lock}/{@code lockInterruptibly} throws {@link LockLostException}; either drops the
 * thread's leases of the lost hold, so its pending {@code unlock()} calls throw
 * {@link IllegalMonitorStateException} and the following lock takes the key afresh on the server.
 * {@link #newCondition()} is not supported.
 */
public final class MortiseLock implements DistributedLock {

    private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

    private final LockClient client;
    private final String key;
    /*
     * The threads' leases, kept here rather than through LockClient.asLock(LockSpec): a Lock view
     * hides its leases, and this lock needs the calling thread's innermost one (fencingToken(),
     * renewLock's extend/ensureValid, the validity check that refuses re-entering a lost hold and
     * closes all of that hold's leases), plus whether any thread holds it (expireUnusedOlderThan).
     * The core views also re-enter a lost hold silently (a fresh hold pushed over the lost leases),
     * which Spring Integration's leader initiator must not see.
     */
    private final Map<Thread, Deque<Held>> holders = new ConcurrentHashMap<>();
    private volatile long lastUsedMillis = System.currentTimeMillis();

    /** One open lease and the explicit lease it was taken with ({@code null}: renewed by the client). */
    private record Held(LockLease lease, Duration ttl) {
    }

    MortiseLock(LockClient client, String key) {
        this.client = client;
        this.key = key;
    }

    /** The key locked on the server (the registry's prefix included). */
    public String key() {
        return key;
    }

    /**
     * The fencing token of the calling thread's hold, to pass with every write the lock guards.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold this lock
     */
    public long fencingToken() {
        return innermost().lease().fencingToken();
    }

    /** Whether the calling thread holds this lock and the hold is still valid as far as the client can tell. */
    public boolean isHeldByCurrentThread() {
        Deque<Held> stack = holders.get(Thread.currentThread());
        return stack != null && !stack.isEmpty();
    }

    boolean isHeld() {
        return !holders.isEmpty();
    }

    long lastUsedMillis() {
        return lastUsedMillis;
    }

    @Override
    public void lock() {
        lock(spec(FOREVER, null));
    }

    @Override
    public void lock(Duration ttl) {
        lock(spec(FOREVER, ttl));
    }

    private void lock(LockSpec spec) {
        LockLostException lost = dropLostHold();
        if (lost != null) {
            throw lost;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    push(client.acquire(spec), spec.explicitLease());
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
        LockLostException lost = dropLostHold();
        if (lost != null) {
            throw lost;
        }
        interruptibly(spec(FOREVER, null));
    }

    @Override
    public boolean tryLock() {
        if (dropLostHold() != null) {
            return false;
        }
        LockSpec spec = spec(Duration.ZERO, null);
        return push(client.tryAcquire(spec), null);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return interruptibly(spec(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null));
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        return interruptibly(spec(waitTime.isNegative() ? Duration.ZERO : waitTime, ttl));
    }

    private boolean interruptibly(LockSpec spec) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before locking '" + key + "' (backend '"
                    + client.backendName() + "')");
        }
        if (dropLostHold() != null) {
            return false;
        }
        try {
            return push(client.tryAcquire(spec), spec.explicitLease());
        } catch (LockInterruptedException e) {
            Thread.interrupted();
            InterruptedException interrupted = new InterruptedException(e.getMessage());
            interrupted.initCause(e);
            throw interrupted;
        }
    }

    @Override
    public void unlock() {
        Thread thread = Thread.currentThread();
        Deque<Held> stack = holders.get(thread);
        Held held = stack == null ? null : stack.pollFirst();
        if (stack != null && stack.isEmpty()) {
            holders.remove(thread);
        }
        if (held == null) {
            throw new IllegalMonitorStateException("Thread " + thread.getName() + " does not hold lock '" + key
                    + "' (backend '" + client.backendName() + "'); unlock on the thread that locked, once per lock");
        }
        lastUsedMillis = System.currentTimeMillis();
        held.lease().close();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed locks have no conditions (lock '" + key + "', backend '"
                + client.backendName() + "'); wait on the data itself, or use a queue");
    }

    /** See {@link MortiseLockRegistry#renewLock(Object, Duration)}; {@code ttl == null}: renew as locked. */
    void renew(Duration ttl) {
        Held held = innermost();
        lastUsedMillis = System.currentTimeMillis();
        Duration lease = ttl != null ? ttl : held.ttl();
        if (lease == null) {
            // A renewed hold: the client's watchdog keeps it; renewing means checking it is still ours.
            held.lease().ensureValid();
        } else {
            held.lease().extend(lease);
        }
    }

    /**
     * A lost hold cannot be re-entered: if the calling thread's hold of this lock is no longer
     * valid, its leases are dropped (so that a later lock starts afresh on the server) and the loss
     * is returned, for the caller to refuse this re-entry. Spring Integration's leader initiator
     * re-locks on every heartbeat and relies on that refusal to revoke a leader whose lock is gone;
     * a quiet fresh grant would keep it "leader" with a hold it releases at once.
     */
    private LockLostException dropLostHold() {
        Deque<Held> stack = holders.get(Thread.currentThread());
        if (stack == null || stack.isEmpty() || stack.peekFirst().lease().isValid()) {
            return null;
        }
        holders.remove(Thread.currentThread());
        LockLease top = stack.peekFirst().lease();
        LockLostException lost;
        try {
            top.ensureValid();
            lost = new LockLostException("The hold of '" + key + "' (backend '" + client.backendName()
                    + "') ended before this re-entry; lock again to take it afresh", key, client.backendName(),
                    LostReason.EXPIRED, null);
        } catch (LockLostException e) {
            lost = e;
        }
        for (Held held : stack) {
            try {
                held.lease().close();
            } catch (LockException e) {
                // Already lost: closing only tidies the client's side; the loss is reported above.
            }
        }
        lastUsedMillis = System.currentTimeMillis();
        return lost;
    }

    private Held innermost() {
        Deque<Held> stack = holders.get(Thread.currentThread());
        Held held = stack == null ? null : stack.peekFirst();
        if (held == null) {
            throw new IllegalMonitorStateException("Thread " + Thread.currentThread().getName()
                    + " does not hold lock '" + key + "' (backend '" + client.backendName() + "')");
        }
        return held;
    }

    private LockSpec spec(Duration wait, Duration ttl) {
        LockSpec spec = LockSpec.of(key).waitFor(wait);
        return ttl == null ? spec : spec.lease(ttl);
    }

    private boolean push(Optional<LockLease> lease, Duration ttl) {
        lease.ifPresent(l -> push(l, ttl));
        return lease.isPresent();
    }

    private void push(LockLease lease, Duration ttl) {
        // Only the owning thread touches its own stack, so a plain deque is enough.
        holders.computeIfAbsent(Thread.currentThread(), t -> new ArrayDeque<>()).push(new Held(lease, ttl));
        lastUsedMillis = System.currentTimeMillis();
    }

    @Override
    public String toString() {
        return "MortiseLock[" + key + " on " + client.backendName() + "]";
    }
}
