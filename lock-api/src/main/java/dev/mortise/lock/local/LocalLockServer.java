package dev.mortise.lock.local;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Ticker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-memory lock server: what several {@link LocalLockBackend}s share to behave like
 * separate processes talking to one server. Real leases (judged by this server's clock),
 * a fencing counter per key that is never reset, and waiters woken on release.
 *
 * <p>Each key has at most one exclusive holder or any number of shared holders, each with its
 * own lease. Waiting requests queue per key in arrival order and are granted from the head:
 * shared requests at the head are granted together, an exclusive one waits until the key is
 * free, and while an exclusive request waits no new shared request is granted (not even a
 * {@code tryAcquire}), so readers never starve a writer. Every grant, shared or exclusive,
 * takes the next value of the key's one counter.
 *
 * <p>Semaphores ({@link LockRequest#takesPermits() permit requests}) are shared holds with a count:
 * a key's permit holds are granted while their counts fit under the count stored with them (the
 * first holder's, or the last {@link #setPermits}); a request arriving with another count while
 * permits are held is refused ({@link PermitCountMismatchException}). Permit waiters are served
 * strictly in arrival order: a waiter for many permits is not overtaken by later ones for few, and
 * no new request (not even a {@code tryAcquire}) is granted while one waits.
 *
 * <p>Thread-safe. Its state lives as long as the object: fencing tokens restart if it is
 * discarded. The test hooks {@link #forget}, {@link #seize}, {@link #stop} and {@link #start}
 * let tests break holds and the "network" on purpose.
 *
 * <p>Leases are judged on the server's {@link Ticker} (the system one unless given): a test
 * that moves a ticker by hand expires leases without sleeping. Waiting for a key stays on real
 * time (a {@code wait} of five seconds is five real seconds); a jump of the ticker wakes every
 * waiter to look again.
 */
public final class LocalLockServer {

    private final String name;
    private final Ticker ticker;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, KeyRecord> entries = new HashMap<>(); // guarded by lock
    private final AsyncWaiters asyncWaiters = new AsyncWaiters(this);
    private final LocalWaitRecords waitRecords = new LocalWaitRecords(this);
    private volatile boolean down;

    public LocalLockServer() {
        this("local");
    }

    /** @param name shown in error messages */
    public LocalLockServer(String name) {
        this(name, Ticker.system());
    }

    /**
     * A server whose leases run on {@code ticker}. Clients on it take the same ticker (through
     * {@link LocalLockBackend#ticker()}); waiters are woken whenever it jumps.
     *
     * @param name   shown in error messages
     * @param ticker the clock of its leases
     */
    public LocalLockServer(String name, Ticker ticker) {
        this.name = name;
        this.ticker = java.util.Objects.requireNonNull(ticker, "ticker");
        ticker.onJump(this::wakeAll);
    }

    /** The clock this server judges leases by. */
    public Ticker ticker() {
        return ticker;
    }

    /** After a jump of the ticker: every waiter looks again, since holders' leases may have ended. */
    private long wakeAll() {
        lock.lock();
        try {
            for (KeyRecord entry : entries.values()) {
                entry.wake();
            }
        } finally {
            unlock();
        }
        return Long.MAX_VALUE;
    }

    Attempt tryAcquire(LockRequest request) {
        long requestedAt = ticker.read();
        lock.lock();
        try {
            checkUp(request.key());
            return attemptLocked(entry(request.key()), request, requestedAt, null);
        } finally {
            unlock();
        }
    }

    /**
     * All of {@code requests} or none, under one acquisition of the server's lock, so no other
     * request sees a part of it: each is tried as {@link #tryAcquire} would, in order; a busy one
     * releases those granted before it (their tokens stay used) and the answer is empty.
     */
    List<Grant> tryAcquireAll(List<LockRequest> requests) {
        long requestedAt = ticker.read();
        lock.lock();
        try {
            for (LockRequest request : requests) {
                checkUp(request.key());
            }
            List<Grant> grants = new ArrayList<>(requests.size());
            for (LockRequest request : requests) {
                Attempt attempt = attemptLocked(entry(request.key()), request, requestedAt, null);
                if (!attempt.isGranted()) {
                    for (Grant granted : grants) {
                        release(granted);
                    }
                    return List.of();
                }
                grants.add(attempt.grant().get());
            }
            return grants;
        } finally {
            unlock();
        }
    }

    Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        long requestedAt = ticker.read();
        long deadline = Deadlines.after(System.nanoTime(), wait); // waits are real time, whatever the ticker
        lock.lockInterruptibly();
        try {
            checkUp(request.key());
            KeyRecord entry = entry(request.key());
            Attempt attempt = attemptLocked(entry, request, requestedAt, null);
            if (attempt.isGranted() || deadline - System.nanoTime() <= 0) {
                return attempt.grant();
            }
            KeyRecord.Waiter me = new KeyRecord.Waiter(request.shared());
            entry.enqueue(me);
            try {
                while (true) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return Optional.empty();
                    }
                    // On a hand-moved ticker the holder's lease ends at a jump, which wakes us: no real-time bound.
                    long holder = ticker.isSystem() ? attempt.holderRemaining().map(Duration::toNanos).orElse(left)
                            : left;
                    entry.changed.awaitNanos(Math.min(left, holder + 1));
                    checkUp(request.key());
                    attempt = attemptLocked(entry, request, ticker.read(), me);
                    if (attempt.isGranted()) {
                        return attempt.grant();
                    }
                }
            } finally {
                // Granted, timed out, interrupted or failed: the request leaves the queue either way,
                // and whoever it held up (readers behind a writer, the next in line) may go now.
                entry.dequeue(me);
            }
        } finally {
            unlock();
        }
    }

    /** Waits for {@code request} as {@link #acquire} does, with no thread: see {@link AsyncWaiters}. */
    java.util.concurrent.CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        return asyncWaiters.acquire(request, wait);
    }

    /** Lets the asynchronous waiters of changed records look again, then lets go of the lock. */
    void unlock() {
        try {
            asyncWaiters.serveWoken();
        } finally {
            lock.unlock();
        }
    }

    ReentrantLock lock() {
        return lock;
    }

    boolean isDown() {
        return down;
    }

    KeyRecord entry(String key) {
        return entries.computeIfAbsent(key, k -> new KeyRecord(lock.newCondition(), asyncWaiters::woken));
    }

    /** One attempt by {@link Admission}'s rules, at the ticker's time now. */
    private Attempt attemptLocked(KeyRecord entry, LockRequest request, long requestedAt, KeyRecord.Waiter waiter) {
        return Admission.attempt(entry, request, requestedAt, waiter, ticker.read());
    }

    /**
     * Sets the stored permit count of the semaphore key {@code key} while permit holds exist (with
     * none, the next request's count applies) and wakes the waiters, which follow it.
     */
    void setPermits(String key, int limit) {
        lock.lock();
        try {
            checkUp(key);
            KeyRecord entry = entries.get(key);
            if (entry == null) {
                return;
            }
            entry.pruneReaders(ticker.read());
            if (!entry.permitCounts.isEmpty()) {
                entry.permitLimit = limit;
            }
            entry.wake();
        } finally {
            unlock();
        }
    }

    boolean renew(Grant grant, Duration lease) {
        lock.lock();
        try {
            checkUp(grant.key());
            KeyRecord entry = entries.get(grant.key());
            long now = ticker.read();
            if (entry == null) {
                return false;
            }
            return entry.renew(grant.owner(), now, lease.toNanos());
        } finally {
            unlock();
        }
    }

    /** Renews many holds under one acquisition of the server's lock; returns those that are gone. */
    java.util.Set<Grant> renewAll(java.util.Collection<Grant> grants, Duration lease) {
        java.util.Set<Grant> gone = new java.util.HashSet<>();
        lock.lock();
        try {
            for (Grant grant : grants) {
                if (!renew(grant, lease)) {
                    gone.add(grant);
                }
            }
            return gone;
        } finally {
            unlock();
        }
    }

    boolean release(Grant grant) {
        lock.lock();
        try {
            checkUp(grant.key());
            KeyRecord entry = entries.get(grant.key());
            if (entry == null) {
                return false;
            }
            return entry.release(grant.owner(), ticker.read());
        } finally {
            unlock();
        }
    }

    /**
     * What the server keeps for {@code key}: the live exclusive holder, or the live readers (in no
     * particular order), each with the key's token at its grant and its lease left by this server's
     * clock, and the requests waiting in {@code acquire}. Changes nothing (an unknown key stays unknown,
     * expired readers are skipped, not pruned).
     */
    KeyState inspect(String key) {
        lock.lock();
        try {
            checkUp(key);
            KeyRecord entry = entries.get(key);
            if (entry == null) {
                return KeyState.free(OptionalInt.of(0));
            }
            return entry.state(ticker.read());
        } finally {
            unlock();
        }
    }

    void ping() {
        checkUp("(ping)");
    }

    /** Test hook: drops every hold on {@code key} (exclusive and shared), as if they had expired; waiters are woken. */
    public void forget(String key) {
        onEntry(key, null, entry -> {
            entry.dropAll();
            return null;
        });
    }

    /**
     * Test hook: drops {@code owner}'s hold on {@code key} (exclusive or shared), as if it had
     * expired; waiters are woken.
     *
     * @return true if the owner held the key
     */
    public boolean forget(String key, String owner) {
        return onEntry(key, false, entry -> entry.drop(owner, ticker.read()));
    }

    /**
     * Test hook: another owner takes {@code key}. Ends every hold on it (exclusive and shared)
     * and grants it to {@code owner}, exclusive, for {@code lease}, with the key's next fencing
     * token, in one step: no waiter can come in between. The owners that held it find out as
     * they would from a server: their renewals and releases are refused.
     *
     * @return the new holder's grant (release it with {@link LocalLockBackend#release})
     */
    public Grant seize(String key, String owner, Duration lease) {
        lock.lock();
        try {
            checkUp(key);
            return entry(key).seize(key, owner, ticker.read(), lease);
        } finally {
            unlock();
        }
    }

    /** Whether someone holds {@code key} now, exclusive or shared (for tests: nothing left behind). */
    public boolean isHeld(String key) {
        return onEntry(key, false, entry -> {
            long now = ticker.read();
            return entry.heldAt(now) || entry.pruneReaders(now) > 0;
        });
    }

    /**
     * What the server keeps for {@code key} besides its fencing counter: valid holds (the
     * exclusive one or each shared one) plus waiting requests. 0 when nobody holds or waits.
     */
    public int records(String key) {
        return onEntry(key, 0, entry -> entry.records(ticker.read()));
    }

    /** {@code read} of {@code key}'s record under the server's lock, or {@code absent} if it has none. */
    private <T> T onEntry(String key, T absent, java.util.function.Function<KeyRecord, T> read) {
        lock.lock();
        try {
            KeyRecord entry = entries.get(key);
            return entry == null ? absent : read.apply(entry);
        } finally {
            unlock();
        }
    }

    /** The wait records of deadlock detection this server keeps, shared by its backends. */
    LocalWaitRecords waitRecords() {
        return waitRecords;
    }

    /** Test hook: how many wait records the server keeps for {@code holderIds} (expired ones are swept first). */
    public int waitRecords(java.util.Collection<String> holderIds) {
        return waitRecords.stored(holderIds);
    }

    /** Test hook: every operation fails with {@link LockBackendException} until {@link #start()}. */
    public void stop() {
        down = true;
    }

    /** Test hook: undoes {@link #stop()}. */
    public void start() {
        down = false;
    }

    void checkUp(String key) {
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
