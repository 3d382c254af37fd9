package dev.mortise.lock.local;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Ticker;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.locks.Condition;
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
    private final Map<String, Entry> entries = new HashMap<>(); // guarded by lock
    private volatile boolean down;

    /** One waiting request (guarded by lock). */
    private static final class Waiter {
        final boolean shared;

        Waiter(boolean shared) {
            this.shared = shared;
        }
    }

    private static final class Entry {
        /** The exclusive holder, or null. */
        String owner;
        long expiresAtNanos;
        /** Shared holders: owner → expiry (on the server's ticker). */
        final Map<String, Long> readers = new HashMap<>(4);
        /** Shared holders: owner → the token of its grant (the exclusive holder's is {@link #token}). */
        final Map<String, Long> readerTokens = new HashMap<>(4);
        /** Shared holders that are semaphore permit holds: owner → how many permits it takes. */
        final Map<String, Integer> permitCounts = new HashMap<>(4);
        /** The semaphore's count, meaningful while {@link #permitCounts} is not empty. */
        int permitLimit;
        long token;
        /** Requests waiting in {@code acquire}, in arrival order. */
        final Deque<Waiter> waiters = new ArrayDeque<>(2);
        int exclusiveWaiters;
        final Condition changed;

        Entry(Condition changed) {
            this.changed = changed;
        }

        boolean heldAt(long now) {
            return owner != null && now - expiresAtNanos < 0;
        }

        /** Drops shared holders whose lease ran out; returns how long the longest one left has. */
        long pruneReaders(long now) {
            long longest = 0;
            Iterator<Map.Entry<String, Long>> it = readers.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<String, Long> reader = it.next();
                long left = reader.getValue() - now;
                if (left <= 0) {
                    readerTokens.remove(reader.getKey());
                    permitCounts.remove(reader.getKey());
                    it.remove();
                } else {
                    longest = Math.max(longest, left);
                }
            }
            return longest;
        }

        boolean readerAt(String reader, long now) {
            Long expires = readers.get(reader);
            return expires != null && now - expires < 0;
        }
    }

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
            for (Entry entry : entries.values()) {
                entry.changed.signalAll();
            }
        } finally {
            lock.unlock();
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
            lock.unlock();
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
            lock.unlock();
        }
    }

    Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        long requestedAt = ticker.read();
        long deadline = Deadlines.after(System.nanoTime(), wait); // waits are real time, whatever the ticker
        lock.lockInterruptibly();
        try {
            checkUp(request.key());
            Entry entry = entry(request.key());
            Attempt attempt = attemptLocked(entry, request, requestedAt, null);
            if (attempt.isGranted() || deadline - System.nanoTime() <= 0) {
                return attempt.grant();
            }
            Waiter me = new Waiter(request.shared());
            entry.waiters.addLast(me);
            if (!me.shared) {
                entry.exclusiveWaiters++;
            }
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
                if (entry.waiters.remove(me) && !me.shared) {
                    entry.exclusiveWaiters--;
                }
                entry.changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    private Entry entry(String key) {
        return entries.computeIfAbsent(key, k -> new Entry(lock.newCondition()));
    }

    /**
     * One attempt. A request already waiting ({@code waiter} not null) goes only when every
     * request ahead of it in the queue is shared and may go too; a new request ({@code waiter}
     * null) is not queued, so it goes whenever the holders allow it, except that a shared one
     * never passes a waiting exclusive request.
     */
    private Attempt attemptLocked(Entry entry, LockRequest request, long requestedAt, Waiter waiter) {
        if (request.takesPermits()) {
            return attemptPermitsLocked(entry, request, requestedAt, waiter);
        }
        long now = ticker.read();
        String owner = request.owner();
        boolean exclusiveHeld = entry.heldAt(now) && !owner.equals(entry.owner);
        long readersLeft = entry.pruneReaders(now);
        boolean mine = owner.equals(entry.owner) || entry.readerAt(owner, now);
        if (!mine) {
            if (exclusiveHeld) {
                return Attempt.busy(Duration.ofNanos(entry.expiresAtNanos - now));
            }
            if (!request.shared() && !entry.readers.isEmpty()) {
                return Attempt.busy(Duration.ofNanos(readersLeft));
            }
            if (request.shared() && !entry.permitCounts.isEmpty()) {
                return Attempt.busy(Duration.ofNanos(readersLeft)); // a semaphore's key: only permit holds join
            }
            if (request.shared() && blockedByQueue(entry, waiter)) {
                return Attempt.busy(null);
            }
            if (!request.shared() && waiter != null && entry.waiters.peekFirst() != waiter) {
                return Attempt.busy(null);
            }
            entry.token++;
        }
        long expires = now + request.lease().toNanos();
        if (request.shared()) {
            entry.readers.put(owner, expires);
            if (mine) {
                entry.readerTokens.putIfAbsent(owner, entry.token); // a retried request keeps its token
            } else {
                entry.readerTokens.put(owner, entry.token);
            }
        } else {
            entry.owner = owner;
            entry.expiresAtNanos = expires;
        }
        return Attempt.granted(new Grant(request.key(), owner, entry.token, requestedAt, null));
    }

    /**
     * One attempt at {@code request.permits().count()} permits. Strict arrival order: a new request
     * goes only when no one waits, a waiting one only from the head of the queue. A new request checks
     * its count against the stored one; a waiting one follows the stored count (see {@link #setPermits}).
     */
    private Attempt attemptPermitsLocked(Entry entry, LockRequest request, long requestedAt, Waiter waiter) {
        long now = ticker.read();
        String owner = request.owner();
        entry.pruneReaders(now);
        if (!entry.readerAt(owner, now)) {
            if (entry.heldAt(now)) {
                return Attempt.busy(Duration.ofNanos(entry.expiresAtNanos - now));
            }
            long soonest = Long.MAX_VALUE;
            int used = 0;
            for (Map.Entry<String, Long> reader : entry.readers.entrySet()) {
                soonest = Math.min(soonest, reader.getValue() - now);
                used += entry.permitCounts.getOrDefault(reader.getKey(), 0);
            }
            Duration holderLeft = soonest == Long.MAX_VALUE ? null : Duration.ofNanos(soonest);
            if (entry.readers.size() > entry.permitCounts.size()) {
                return Attempt.busy(holderLeft); // plain shared holds of this key: not a semaphore's
            }
            int limit = request.permits().limit();
            if (!entry.permitCounts.isEmpty()) {
                if (waiter == null && entry.permitLimit != limit) {
                    throw new PermitCountMismatchException(request.key(), "local", entry.permitLimit, limit);
                }
                limit = entry.permitLimit;
            }
            if (waiter == null ? !entry.waiters.isEmpty() : entry.waiters.peekFirst() != waiter) {
                return Attempt.busy(holderLeft);
            }
            if (used + request.permits().count() > limit) {
                return Attempt.busy(holderLeft);
            }
            entry.token++;
            entry.permitLimit = limit;
            entry.readerTokens.put(owner, entry.token);
            entry.permitCounts.put(owner, request.permits().count());
        }
        entry.readers.put(owner, now + request.lease().toNanos());
        return Attempt.granted(new Grant(request.key(), owner, entry.readerTokens.get(owner), requestedAt, null));
    }

    /**
     * Sets the stored permit count of the semaphore key {@code key} while permit holds exist (with
     * none, the next request's count applies) and wakes the waiters, which follow it.
     */
    void setPermits(String key, int limit) {
        lock.lock();
        try {
            checkUp(key);
            Entry entry = entries.get(key);
            if (entry == null) {
                return;
            }
            entry.pruneReaders(ticker.read());
            if (!entry.permitCounts.isEmpty()) {
                entry.permitLimit = limit;
            }
            entry.changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Whether a shared request must wait for an exclusive one queued ahead of it (or at all, if new). */
    private static boolean blockedByQueue(Entry entry, Waiter waiter) {
        if (entry.exclusiveWaiters == 0) {
            return false;
        }
        if (waiter == null) {
            return true;
        }
        for (Waiter ahead : entry.waiters) {
            if (ahead == waiter) {
                return false;
            }
            if (!ahead.shared) {
                return true;
            }
        }
        return false;
    }

    boolean renew(Grant grant, Duration lease) {
        lock.lock();
        try {
            checkUp(grant.key());
            Entry entry = entries.get(grant.key());
            long now = ticker.read();
            if (entry == null) {
                return false;
            }
            if (entry.readerAt(grant.owner(), now)) {
                entry.readers.put(grant.owner(), now + lease.toNanos());
                return true;
            }
            if (!entry.heldAt(now) || !grant.owner().equals(entry.owner)) {
                return false;
            }
            entry.expiresAtNanos = now + lease.toNanos();
            return true;
        } finally {
            lock.unlock();
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
            lock.unlock();
        }
    }

    boolean release(Grant grant) {
        lock.lock();
        try {
            checkUp(grant.key());
            Entry entry = entries.get(grant.key());
            if (entry == null) {
                return false;
            }
            long now = ticker.read();
            Long shared = entry.readers.remove(grant.owner());
            if (shared != null) {
                entry.readerTokens.remove(grant.owner());
                entry.permitCounts.remove(grant.owner());
                entry.changed.signalAll();
                return now - shared < 0;
            }
            if (!grant.owner().equals(entry.owner)) {
                return false;
            }
            boolean wasHeld = entry.heldAt(now);
            entry.owner = null;
            entry.changed.signalAll();
            return wasHeld;
        } finally {
            lock.unlock();
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
            Entry entry = entries.get(key);
            if (entry == null) {
                return KeyState.free(OptionalInt.of(0));
            }
            long now = ticker.read();
            OptionalInt waiting = OptionalInt.of(entry.waiters.size());
            if (entry.heldAt(now)) {
                return new KeyState(LockMode.EXCLUSIVE, List.of(holder(entry.owner, entry.token, entry.expiresAtNanos - now)), waiting);
            }
            List<KeyState.Holder> readers = new ArrayList<>(entry.readers.size());
            for (Map.Entry<String, Long> reader : entry.readers.entrySet()) {
                long left = reader.getValue() - now;
                if (left > 0) {
                    readers.add(holder(reader.getKey(), entry.readerTokens.get(reader.getKey()), left));
                }
            }
            return readers.isEmpty() ? KeyState.free(waiting) : new KeyState(LockMode.SHARED, readers, waiting);
        } finally {
            lock.unlock();
        }
    }

    private static KeyState.Holder holder(String owner, Long token, long leftNanos) {
        return new KeyState.Holder(owner, token == null ? OptionalLong.empty() : OptionalLong.of(token),
                Optional.of(Duration.ofNanos(leftNanos)));
    }

    void ping() {
        checkUp("(ping)");
    }

    /** Test hook: drops every hold on {@code key} (exclusive and shared), as if they had expired; waiters are woken. */
    public void forget(String key) {
        lock.lock();
        try {
            Entry entry = entries.get(key);
            if (entry != null) {
                entry.owner = null;
                entry.readers.clear();
                entry.readerTokens.clear();
                entry.permitCounts.clear();
                entry.changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Test hook: drops {@code owner}'s hold on {@code key} (exclusive or shared), as if it had
     * expired; waiters are woken.
     *
     * @return true if the owner held the key
     */
    public boolean forget(String key, String owner) {
        lock.lock();
        try {
            Entry entry = entries.get(key);
            if (entry == null) {
                return false;
            }
            long now = ticker.read();
            entry.readerTokens.remove(owner);
            entry.permitCounts.remove(owner);
            Long shared = entry.readers.remove(owner);
            boolean held = shared != null && now - shared < 0 || owner.equals(entry.owner) && entry.heldAt(now);
            if (owner.equals(entry.owner)) {
                entry.owner = null;
            }
            entry.changed.signalAll();
            return held;
        } finally {
            lock.unlock();
        }
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
            Entry entry = entry(key);
            long now = ticker.read();
            entry.readers.clear();
            entry.readerTokens.clear();
            entry.permitCounts.clear();
            entry.owner = owner;
            entry.expiresAtNanos = now + lease.toNanos();
            entry.token++;
            entry.changed.signalAll();
            return new Grant(key, owner, entry.token, now, null);
        } finally {
            lock.unlock();
        }
    }

    /** Whether someone holds {@code key} now, exclusive or shared (for tests: nothing left behind). */
    public boolean isHeld(String key) {
        lock.lock();
        try {
            Entry entry = entries.get(key);
            long now = ticker.read();
            return entry != null && (entry.heldAt(now) || entry.pruneReaders(now) > 0);
        } finally {
            lock.unlock();
        }
    }

    /**
     * What the server keeps for {@code key} besides its fencing counter: valid holds (the
     * exclusive one or each shared one) plus waiting requests. 0 when nobody holds or waits.
     */
    public int records(String key) {
        lock.lock();
        try {
            Entry entry = entries.get(key);
            if (entry == null) {
                return 0;
            }
            long now = ticker.read();
            entry.pruneReaders(now);
            return (entry.heldAt(now) ? 1 : 0) + entry.readers.size() + entry.waiters.size();
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
