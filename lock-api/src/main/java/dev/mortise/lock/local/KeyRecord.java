package dev.mortise.lock.local;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;

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

/**
 * What a {@link LocalLockServer} keeps for one key: its holders with their leases, its fencing
 * counter, its queue of waiting requests, and the condition its waiters wait on. Times are on the
 * server's ticker. Not thread-safe: guarded by the server's lock, which every method here expects
 * the caller to hold.
 */
final class KeyRecord {

    /** One waiting request: a thread in {@code acquire}, or an asynchronous one ({@link AsyncWaiter}). */
    static class Waiter {
        final boolean shared;

        Waiter(boolean shared) {
            this.shared = shared;
        }
    }

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
    /** Told when waiters should look again and asynchronous ones wait here (see {@link #wake}). */
    private final java.util.function.Consumer<KeyRecord> woken;
    /** Asynchronous waiters in {@link #waiters}. */
    int asyncWaiters;
    /** Whether this record was handed to {@link #woken} since its asynchronous waiters last looked. */
    boolean wokenPending;

    KeyRecord(Condition changed, java.util.function.Consumer<KeyRecord> woken) {
        this.changed = changed;
        this.woken = woken;
    }

    /**
     * Something changed that may let waiters in: threads waiting on {@link #changed} are signalled,
     * and the asynchronous waiters, which have no thread, are handed to the server to look again
     * before it lets go of its lock.
     */
    void wake() {
        changed.signalAll();
        if (asyncWaiters > 0 && !wokenPending) {
            wokenPending = true;
            woken.accept(this);
        }
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

    /** Queues {@code waiter} behind the requests already waiting. */
    void enqueue(Waiter waiter) {
        waiters.addLast(waiter);
        if (!waiter.shared) {
            exclusiveWaiters++;
        }
        if (waiter instanceof AsyncWaiter) {
            asyncWaiters++;
        }
    }

    /** Takes {@code waiter} out of the queue (granted, timed out, interrupted or failed) and wakes the others. */
    void dequeue(Waiter waiter) {
        if (waiters.remove(waiter)) {
            if (!waiter.shared) {
                exclusiveWaiters--;
            }
            if (waiter instanceof AsyncWaiter) {
                asyncWaiters--;
            }
        }
        wake();
    }

    /** Extends {@code owner}'s live hold to {@code leaseNanos} from {@code now}; false if it has none. */
    boolean renew(String owner, long now, long leaseNanos) {
        if (readerAt(owner, now)) {
            readers.put(owner, now + leaseNanos);
            return true;
        }
        if (!heldAt(now) || !owner.equals(this.owner)) {
            return false;
        }
        expiresAtNanos = now + leaseNanos;
        return true;
    }

    /** Ends {@code owner}'s hold and wakes the waiters; whether it was still live. */
    boolean release(String owner, long now) {
        Long shared = readers.remove(owner);
        if (shared != null) {
            readerTokens.remove(owner);
            permitCounts.remove(owner);
            wake();
            return now - shared < 0;
        }
        if (!owner.equals(this.owner)) {
            return false;
        }
        boolean wasHeld = heldAt(now);
        this.owner = null;
        wake();
        return wasHeld;
    }

    /** Drops every hold, exclusive and shared, as if they had expired, and wakes the waiters. */
    void dropAll() {
        owner = null;
        readers.clear();
        readerTokens.clear();
        permitCounts.clear();
        wake();
    }

    /** Drops {@code owner}'s hold as if it had expired and wakes the waiters; whether it was live. */
    boolean drop(String owner, long now) {
        readerTokens.remove(owner);
        permitCounts.remove(owner);
        Long shared = readers.remove(owner);
        boolean held = shared != null && now - shared < 0 || owner.equals(this.owner) && heldAt(now);
        if (owner.equals(this.owner)) {
            this.owner = null;
        }
        wake();
        return held;
    }

    /** Ends every hold and gives the key to {@code owner}, exclusive, with the next token, in one step. */
    Grant seize(String key, String owner, long now, Duration lease) {
        readers.clear();
        readerTokens.clear();
        permitCounts.clear();
        this.owner = owner;
        expiresAtNanos = now + lease.toNanos();
        token++;
        wake();
        return new Grant(key, owner, token, now, null);
    }

    /** Valid holds plus waiting requests (after dropping expired readers). */
    int records(long now) {
        pruneReaders(now);
        return (heldAt(now) ? 1 : 0) + readers.size() + waiters.size();
    }

    /**
     * The live exclusive holder, or the live readers (in no particular order), each with the key's
     * token at its grant and its lease left at {@code now}, and the waiting requests. Changes
     * nothing (expired readers are skipped, not pruned).
     */
    KeyState state(long now) {
        OptionalInt waiting = OptionalInt.of(waiters.size());
        if (heldAt(now)) {
            return new KeyState(LockMode.EXCLUSIVE, List.of(holder(owner, token, expiresAtNanos - now)), waiting);
        }
        List<KeyState.Holder> live = new ArrayList<>(readers.size());
        for (Map.Entry<String, Long> reader : readers.entrySet()) {
            long left = reader.getValue() - now;
            if (left > 0) {
                live.add(holder(reader.getKey(), readerTokens.get(reader.getKey()), left));
            }
        }
        return live.isEmpty() ? KeyState.free(waiting) : new KeyState(LockMode.SHARED, live, waiting);
    }

    private static KeyState.Holder holder(String owner, Long token, long leftNanos) {
        return new KeyState.Holder(owner, token == null ? OptionalLong.empty() : OptionalLong.of(token),
                Optional.of(Duration.ofNanos(leftNanos)));
    }
}
