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
 *
 * <p>Ownership is the calling thread's <em>within its registry</em>: each thread's hold is taken
 * under an explicit owner id the registry gives it ({@link LockSpec#owner}), so a thread re-enters
 * what it locked through this registry and nothing else — not the same key locked through another
 * registry over the same client, nor through the client's own API, as two Spring Integration
 * registries never share a hold.
 *
 * <p>One live lock per key: {@link MortiseLockRegistry#expireUnusedOlderThan} only drops
 * (<em>retires</em>) a lock no thread holds or is locking. A retired lock holds no state; every
 * later call on it goes to the registry's live lock of its key, putting the retired one back as
 * that lock if the key has none. So a lock obtained before an expiry and locked after it is still
 * the registry's lock: {@code obtain}, {@code renewLock} and {@code unlock} all find the hold.
 */
public final class MortiseLock implements DistributedLock {

    private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

    private final MortiseLockRegistry registry;
    private final LockClient client;
    private final String key;
    /*
     * The threads' leases, kept here rather than through LockClient.asLock(LockSpec): a Lock view
     * hides its leases, and this lock needs the calling thread's innermost one (fencingToken(),
     * renewLock's extend/ensureValid, the validity check that refuses re-entering a lost hold and
     * closes all of that hold's leases), plus whether any thread holds it (expireUnusedOlderThan).
     * The core views also re-enter a lost hold silently (a fresh hold pushed over the lost leases),
     * which Spring Integration's leader initiator must not see, and are owned by bare threads,
     * where each registry needs an owner namespace of its own (LockSpec.owner, which views refuse).
     */
    private final Map<Thread, Deque<Held>> holders = new ConcurrentHashMap<>();
    private volatile long lastUsedMillis = System.currentTimeMillis();
    private int locking; // guarded by this: calls between enter() and their exit(), so expiry cannot retire them
    private boolean retired; // guarded by this: dropped from the registry; see live()

    /**
     * One open lease, the explicit lease it was taken with ({@code null}: renewed by the client)
     * and the owner id it was taken under (one per thread's run of nested holds).
     */
    private record Held(LockLease lease, Duration ttl, String owner) {
    }

    MortiseLock(MortiseLockRegistry registry, LockClient client, String key) {
        this.registry = registry;
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
        return live().innermost().lease().fencingToken();
    }

    /** Whether the calling thread holds this lock (through this registry). */
    public boolean isHeldByCurrentThread() {
        Deque<Held> stack = live().holders.get(Thread.currentThread());
        return stack != null && !stack.isEmpty();
    }

    /**
     * Retires this lock if no thread holds it or is locking it and it was last used before
     * {@code beforeMillis}; the registry calls it while it removes the lock from its map.
     */
    synchronized boolean retireIfUnused(long beforeMillis) {
        if (locking == 0 && holders.isEmpty() && lastUsedMillis < beforeMillis) {
            retired = true;
        }
        return retired;
    }

    /** Makes a retired lock live again; the registry calls it while it puts the lock back in its map. */
    synchronized void revive() {
        retired = false;
    }

    private synchronized boolean isRetired() {
        return retired;
    }

    /**
     * The registry's live lock of this key: this one unless it was retired. Only a live lock has
     * holders, and a lock that the calling thread holds cannot be retired, so an unlock or a
     * token read reaches the thread's hold through any lock object of the key.
     */
    private MortiseLock live() {
        MortiseLock lock = this;
        while (lock.isRetired()) {
            lock = registry.live(lock);
        }
        return lock;
    }

    /**
     * The live lock of this key, counted as locking until {@link #exit()}: expiry leaves it in the
     * registry while a thread is between obtaining it and holding it (the race of issue 28.4).
     */
    private MortiseLock enter() {
        MortiseLock lock = this;
        while (!lock.tryEnter()) {
            lock = registry.live(lock);
        }
        return lock;
    }

    private synchronized boolean tryEnter() {
        if (retired) {
            return false;
        }
        locking++;
        return true;
    }

    private synchronized void exit() {
        locking--;
    }

    @Override
    public void lock() {
        MortiseLock live = enter();
        try {
            live.lockEntered(null);
        } finally {
            live.exit();
        }
    }

    @Override
    public void lock(Duration ttl) {
        MortiseLock live = enter();
        try {
            live.lockEntered(ttl);
        } finally {
            live.exit();
        }
    }

    private void lockEntered(Duration ttl) {
        LockLostException lost = dropLostHold();
        if (lost != null) {
            throw lost;
        }
        LockSpec spec = spec(FOREVER, ttl);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    push(client.acquire(spec), spec);
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
        MortiseLock live = enter();
        try {
            LockLostException lost = live.dropLostHold();
            if (lost != null) {
                throw lost;
            }
            live.interruptibly(FOREVER, null);
        } finally {
            live.exit();
        }
    }

    @Override
    public boolean tryLock() {
        MortiseLock live = enter();
        try {
            if (live.dropLostHold() != null) {
                return false;
            }
            LockSpec spec = live.spec(Duration.ZERO, null);
            return live.push(client.tryAcquire(spec), spec);
        } finally {
            live.exit();
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        throwIfInterrupted(); // before the lost-hold check, as a lock with a wait always has
        MortiseLock live = enter();
        try {
            if (live.dropLostHold() != null) {
                return false;
            }
            return live.interruptibly(waitTime.isNegative() ? Duration.ZERO : waitTime, ttl);
        } finally {
            live.exit();
        }
    }

    private void throwIfInterrupted() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before locking '" + key + "' (backend '"
                    + client.backendName() + "')");
        }
    }

    private boolean interruptibly(Duration wait, Duration ttl) throws InterruptedException {
        throwIfInterrupted();
        LockSpec spec = spec(wait, ttl);
        try {
            return push(client.tryAcquire(spec), spec);
        } catch (LockInterruptedException e) {
            Thread.interrupted();
            InterruptedException interrupted = new InterruptedException(e.getMessage());
            interrupted.initCause(e);
            throw interrupted;
        }
    }

    @Override
    public void unlock() {
        live().unlockLive();
    }

    private void unlockLive() {
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

    /**
     * The calling thread's request: under the owner id of its current holds (to nest in them), or
     * a fresh one from the registry when it holds none here.
     */
    private LockSpec spec(Duration wait, Duration ttl) {
        Deque<Held> stack = holders.get(Thread.currentThread());
        Held top = stack == null ? null : stack.peekFirst();
        LockSpec spec = LockSpec.of(key).waitFor(wait).owner(top != null ? top.owner() : registry.newOwner());
        return ttl == null ? spec : spec.lease(ttl);
    }

    private boolean push(Optional<LockLease> lease, LockSpec spec) {
        lease.ifPresent(l -> push(l, spec));
        return lease.isPresent();
    }

    private void push(LockLease lease, LockSpec spec) {
        // Only the owning thread touches its own stack, so a plain deque is enough.
        holders.computeIfAbsent(Thread.currentThread(), t -> new ArrayDeque<>())
                .push(new Held(lease, spec.explicitLease(), spec.explicitOwner()));
        lastUsedMillis = System.currentTimeMillis();
    }

    @Override
    public String toString() {
        return "MortiseLock[" + key + " on " + client.backendName() + "]";
    }
}
