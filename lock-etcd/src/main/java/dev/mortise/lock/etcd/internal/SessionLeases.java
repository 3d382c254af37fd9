package dev.mortise.lock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.options.PutOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The session leases of renewed holds: one per TTL, granted on first use with its fence key
 * (see {@link LockQueue#enqueue}), kept alive every third of its TTL by one daemon thread (or
 * by the watchdog's renewals while there are holds to renew), replaced once lost. Thread-safe.
 */
final class SessionLeases {

    private static final Logger log = LoggerFactory.getLogger(SessionLeases.class);

    private final LeaseKeeper keeper;
    private final Lease leases;
    private final KV kv;
    private final KeySpace keys;
    private final Rpc rpc;
    private final ScheduledExecutorService scheduler;
    private final Map<Long, PendingSession> sessions = new HashMap<>(); // by TTL; guarded by this

    SessionLeases(LeaseKeeper keeper, Lease leases, KV kv, KeySpace keys, Rpc rpc, ScheduledExecutorService scheduler) {
        this.keeper = keeper;
        this.leases = leases;
        this.kv = kv;
        this.keys = keys;
        this.rpc = rpc;
        this.scheduler = scheduler;
    }

    /**
     * The live session lease for renewed holds of {@code lease}, granted on first use.
     * Concurrent callers share one grant in flight, each waiting only its own operation
     * timeout for it; a grant still unanswered after a whole timeout is replaced.
     */
    EtcdLease session(Duration lease, String key) {
        long ttl = LeaseKeeper.ttlSeconds(lease);
        PendingSession pending;
        synchronized (this) {
            pending = sessions.get(ttl);
            if (pending == null || pending.stale(rpc.timeout())) {
                if (pending != null && !pending.future().isDone()) {
                    // Abandoned: if it is granted after all, nobody would use it, so revoke it then.
                    pending.future().thenAccept(keeper::revokeQuietly);
                }
                pending = new PendingSession(System.nanoTime(), startSession(ttl));
                sessions.put(ttl, pending);
            }
        }
        // A copy, so that one caller's timeout does not cancel the grant the others wait for.
        return rpc.await(pending.future().copy(), key, "grant a session lease of " + ttl + " s");
    }

    private CompletableFuture<EtcdLease> startSession(long ttl) {
        long sentAt = System.nanoTime();
        return leases.grant(ttl).thenCompose(response -> {
            ByteSequence fence = keys.fenceKey(response.getID());
            return kv.put(fence, KeySpace.bytes("session fence"), PutOption.builder().withLeaseId(response.getID())
                    .build()).thenApply(put -> {
                        EtcdLease session = new EtcdLease(response.getID(), ttl, response.getTTL(), true, sentAt);
                        session.fence(fence, put.getHeader().getRevision());
                        return session;
                    });
        }).thenApply(session -> {
            long period = Math.max(100, session.ttlSeconds() * 1000 / 3);
            try {
                session.keepAliveTask(scheduler.scheduleWithFixedDelay(() -> tick(session,
                        TimeUnit.MILLISECONDS.toNanos(period)), period, period,
                        TimeUnit.MILLISECONDS));
            } catch (RejectedExecutionException closing) {
                keeper.revokeQuietly(session);
            }
            return session;
        });
    }

    /** A session lease granted or being granted. */
    private record PendingSession(long startedAt, CompletableFuture<EtcdLease> future) {
        boolean stale(Duration timeout) {
            if (!future.isDone()) {
                return System.nanoTime() - startedAt > timeout.toNanos();
            }
            return future.isCompletedExceptionally() || future.join().isLost();
        }
    }

    /**
     * The session's own keep-alive, every third of its TTL. While the watchdog renews holds
     * on it, each renewal sends a keep-alive of its own (it must, to extend validity from
     * its tick), so this one is skipped when a renewal kept the lease alive within the last
     * period and a half: a session costs one keep-alive per period either way. If renewals
     * stop, this tick takes over within two and a half periods of the last one, with half a
     * period of the TTL still to go.
     */
    private void tick(EtcdLease session, long periodNanos) {
        if (session.isLost()) {
            return;
        }
        if (System.nanoTime() - session.renewedByWatchdogAt() < periodNanos * 3 / 2) {
            return;
        }
        long sentAt = System.nanoTime();
        try {
            keeper.settle(session, sentAt, keeper.keepAliveAsync(session), rpc.deadline(), "(session)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            if (System.nanoTime() - session.aliveUntilNanos() >= 0) {
                keeper.lost(session, e);
            } else {
                log.warn("Keeping etcd session lease {} alive failed; retrying until it would expire", session, e);
            }
        }
    }

    /** Forgets {@code lease} if it is the session of its TTL (it was lost): the next use grants a new one. */
    synchronized void forget(EtcdLease lease) {
        // Sessions are found by the TTL asked for, which etcd may have raised.
        PendingSession pending = sessions.get(lease.askedTtlSeconds());
        if (pending != null && pending.future().getNow(null) == lease) {
            sessions.remove(lease.askedTtlSeconds());
        }
    }

    /** Forgets every session, answering those that were granted (to revoke). */
    synchronized List<EtcdLease> clear() {
        List<EtcdLease> open = new ArrayList<>();
        for (PendingSession pending : sessions.values()) {
            EtcdLease session = pending.future().getNow(null);
            if (session != null) {
                open.add(session);
            }
        }
        sessions.clear();
        return open;
    }
}
