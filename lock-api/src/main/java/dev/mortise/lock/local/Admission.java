package dev.mortise.lock.local;

import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;
import java.util.Map;

/**
 * The admission rules of a {@link LocalLockServer}: whether one request may have its key now, and
 * if so its grant, written into the key's {@link KeyRecord}. Called with the server's lock held.
 * Stateless.
 */
final class Admission {

    private Admission() {
    }

    /**
     * One attempt at {@code now}. A request already waiting ({@code waiter} not null) goes only when
     * every request ahead of it in the queue is shared and may go too; a new request ({@code waiter}
     * null) is not queued, so it goes whenever the holders allow it, except that a shared one
     * never passes a waiting exclusive request.
     */
    static Attempt attempt(KeyRecord entry, LockRequest request, long requestedAt, KeyRecord.Waiter waiter, long now) {
        if (request.takesPermits()) {
            return attemptPermits(entry, request, requestedAt, waiter, now);
        }
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
     * its count against the stored one; a waiting one follows the stored count (see
     * {@link LocalLockServer#setPermits}).
     */
    private static Attempt attemptPermits(KeyRecord entry, LockRequest request, long requestedAt,
                                          KeyRecord.Waiter waiter, long now) {
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

    /** Whether a shared request must wait for an exclusive one queued ahead of it (or at all, if new). */
    private static boolean blockedByQueue(KeyRecord entry, KeyRecord.Waiter waiter) {
        if (entry.exclusiveWaiters == 0) {
            return false;
        }
        if (waiter == null) {
            return true;
        }
        for (KeyRecord.Waiter ahead : entry.waiters) {
            if (ahead == waiter) {
                return false;
            }
            if (!ahead.shared) {
                return true;
            }
        }
        return false;
    }
}
