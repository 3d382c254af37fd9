package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.Wakeup;
import io.etcd.jetcd.ByteSequence;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One etcd lease as this backend sees it: either the shared session lease of renewed
 * holds (kept alive in the background) or the lease of one explicit-lease hold (kept
 * alive only while its owner waits, then left to expire).
 *
 * <p>{@link #aliveUntilNanos()} is a lower bound on when etcd can expire it: the send time
 * of the last request etcd confirmed, plus the TTL it answered. Thread-safe.
 */
public final class EtcdLease {

    private final long id;
    private final long askedTtlSeconds;
    private final long ttlSeconds;
    private final boolean shared;
    private final AtomicBoolean lost = new AtomicBoolean();
    private final Set<Grant> grants = ConcurrentHashMap.newKeySet();
    private final Set<Wakeup> wakeOnLoss = ConcurrentHashMap.newKeySet();
    private volatile long aliveUntilNanos;
    private volatile ScheduledFuture<?> keepAlive;
    private volatile ByteSequence fenceKey;
    private volatile long fenceRevision;
    private volatile long renewedByWatchdogAt;

    /**
     * @param askedTtlSeconds the TTL this backend asked for (a lease is reused for holds that ask the same)
     * @param ttlSeconds      the TTL etcd granted (at least {@code askedTtlSeconds})
     */
    EtcdLease(long id, long askedTtlSeconds, long ttlSeconds, boolean shared, long sentAtNanos) {
        this.id = id;
        this.askedTtlSeconds = askedTtlSeconds;
        this.ttlSeconds = Math.max(askedTtlSeconds, ttlSeconds);
        this.shared = shared;
        this.aliveUntilNanos = sentAtNanos + ttlSeconds * 1_000_000_000L;
        this.renewedByWatchdogAt = sentAtNanos - ttlSeconds * 1_000_000_000L; // never
    }

    public long id() {
        return id;
    }

    /**
     * The TTL etcd granted and renews it with on every keep-alive: at least what was asked,
     * since etcd raises TTLs below its minimum (1.5 election timeouts, rounded up to a second).
     */
    public long ttlSeconds() {
        return ttlSeconds;
    }

    /**
     * The TTL this backend asked for, whole seconds: a hold renewed with a lease that rounds
     * to this TTL stays on this lease; any other lease moves it (see {@link LeaseMove}).
     */
    public long askedTtlSeconds() {
        return askedTtlSeconds;
    }

    /** Whether this is a session lease shared by every renewed hold of one TTL. */
    public boolean shared() {
        return shared;
    }

    long aliveUntilNanos() {
        return aliveUntilNanos;
    }

    /** Records that etcd confirmed {@code ttlSeconds} for a request sent at {@code sentAtNanos}. */
    synchronized void confirmed(long sentAtNanos, long ttl) {
        long until = sentAtNanos + ttl * 1_000_000_000L;
        if (until - aliveUntilNanos > 0) {
            aliveUntilNanos = until;
        }
    }

    /** Records that the watchdog's renewal kept this lease alive with a keep-alive sent at {@code sentAtNanos}. */
    void renewedByWatchdog(long sentAtNanos) {
        if (sentAtNanos - renewedByWatchdogAt > 0) {
            renewedByWatchdogAt = sentAtNanos;
        }
    }

    /** When the last keep-alive of a watchdog renewal was sent ({@link System#nanoTime()}). */
    long renewedByWatchdogAt() {
        return renewedByWatchdogAt;
    }

    /** The session's fence key (null for a per-lock lease): see {@link LockQueue#enqueue}. */
    ByteSequence fenceKey() {
        return fenceKey;
    }

    long fenceRevision() {
        return fenceRevision;
    }

    synchronized void fence(ByteSequence key, long modRevision) {
        this.fenceKey = key;
        if (modRevision > fenceRevision) {
            fenceRevision = modRevision;
        }
    }

    boolean isLost() {
        return lost.get();
    }

    /** @return true for the one caller that marks it lost */
    boolean markLost() {
        ScheduledFuture<?> task = keepAlive;
        if (task != null) {
            task.cancel(false);
        }
        boolean first = lost.compareAndSet(false, true);
        wakeOnLoss.forEach(Wakeup::signal);
        return first;
    }

    /** Signals {@code wake} when this lease is marked lost (at once if it already is): a waiter looks again. */
    void wakeOnLoss(Wakeup wake) {
        wakeOnLoss.add(wake);
        if (lost.get()) {
            wake.signal();
        }
    }

    void stopWaking(Wakeup wake) {
        wakeOnLoss.remove(wake);
    }

    void keepAliveTask(ScheduledFuture<?> task) {
        this.keepAlive = task;
    }

    Set<Grant> grants() {
        return grants;
    }

    @Override
    public String toString() {
        return "EtcdLease[" + Long.toHexString(id) + ", ttl=" + ttlSeconds + "s" + (shared ? ", session" : "")
                + (lost.get() ? ", lost" : "") + "]";
    }
}
