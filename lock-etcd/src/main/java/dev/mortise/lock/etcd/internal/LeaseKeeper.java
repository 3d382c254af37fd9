package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.LeaseOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Grants, keeps alive and revokes leases. Renewed holds share one session lease per TTL,
 * kept alive every third of its TTL by one daemon thread (or by the watchdog's renewals
 * while there are holds to renew); when etcd says it is gone, or it
 * could not be confirmed before it would have run out, every hold on it is reported lost
 * through the core's {@link GrantListener}s at once. Explicit-lease holds get a lease of
 * their own. Thread-safe.
 */
public final class LeaseKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final Lease leases;
    private final KV kv;
    private final KeySpace keys;
    private final Rpc rpc;
    private final List<GrantListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<Long, PendingSession> sessions = new HashMap<>(); // by TTL; guarded by this
    private final ScheduledThreadPoolExecutor scheduler;

    public LeaseKeeper(Lease leases, KV kv, KeySpace keys, Rpc rpc) {
        this.leases = leases;
        this.kv = kv;
        this.keys = keys;
        this.rpc = rpc;
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "mortise-etcd-keepalive");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /** etcd TTLs are whole seconds: rounded up, so the server never keeps a hold shorter than asked. */
    public static long ttlSeconds(Duration lease) {
        long seconds = lease.getSeconds() + (lease.getNano() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }

    public void addListener(GrantListener listener) {
        listeners.add(listener);
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /**
     * The live session lease for renewed holds of {@code lease}, granted on first use.
     * Concurrent callers share one grant in flight, each waiting only its own operation
     * timeout for it; a grant still unanswered after a whole timeout is replaced.
     */
    EtcdLease session(Duration lease, String key) {
        long ttl = ttlSeconds(lease);
        PendingSession pending;
        synchronized (this) {
            pending = sessions.get(ttl);
            if (pending == null || pending.stale(rpc.timeout())) {
                if (pending != null && !pending.future().isDone()) {
                    // Abandoned: if it is granted after all, nobody would use it, so revoke it then.
                    pending.future().thenAccept(this::revokeQuietly);
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
                revokeQuietly(session);
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

    /** A lease of its own for one explicit-lease hold; nobody keeps it alive once granted. */
    EtcdLease perLock(Duration lease, String key) {
        return grant(ttlSeconds(lease), false, key);
    }

    /**
     * {@code count} leases of their own, for the explicit-lease parts of one batch: the grants
     * are sent together and awaited together, one round trip. If any fails, every lease that is
     * granted anyway is revoked when its answer comes, and the failure is thrown.
     */
    List<EtcdLease> perLock(Duration lease, int count, String key) {
        long ttl = ttlSeconds(lease);
        long sentAt = System.nanoTime();
        List<CompletableFuture<LeaseGrantResponse>> pending = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                pending.add(leases.grant(ttl));
            }
            rpc.await(CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)), key,
                    "grant " + count + " leases of " + ttl + " s");
        } catch (RuntimeException e) {
            for (CompletableFuture<LeaseGrantResponse> grant : pending) {
                grant.thenAccept(response -> revokeQuietly(new EtcdLease(response.getID(), ttl, response.getTTL(),
                        false, sentAt)));
            }
            throw e;
        }
        List<EtcdLease> granted = new ArrayList<>(count);
        for (CompletableFuture<LeaseGrantResponse> grant : pending) {
            LeaseGrantResponse response = grant.join();
            granted.add(new EtcdLease(response.getID(), ttl, response.getTTL(), false, sentAt));
        }
        return granted;
    }

    private EtcdLease grant(long ttl, boolean shared, String key) {
        long sentAt = System.nanoTime();
        LeaseGrantResponse response = rpc.await(leases.grant(ttl), key, "grant a lease of " + ttl + " s");
        return new EtcdLease(response.getID(), ttl, response.getTTL(), shared, sentAt);
    }

    /** Starts one keep-alive; complete it with {@link #settle}. */
    CompletableFuture<LeaseKeepAliveResponse> keepAliveAsync(EtcdLease lease) {
        return rpc.retrying(() -> leases.keepAliveOnce(lease.id()), rpc.deadline());
    }

    /** Starts {@code LeaseTimeToLive} with the keys attached to {@code lease}; TTL -1 if etcd no longer knows it. */
    CompletableFuture<LeaseTimeToLiveResponse> attachedKeysAsync(EtcdLease lease) {
        return rpc.retrying(() -> leases.timeToLive(lease.id(), LeaseOption.builder().withAttachedKeys().build()),
                rpc.deadline());
    }

    /**
     * Interprets the answer to a keep-alive sent at {@code sentAt}.
     *
     * @return true if the lease is alive (and now known to last its TTL from {@code sentAt});
     *         false if etcd says it is gone, in which case it is marked lost
     * @throws LockBackendException if etcd could not be asked
     */
    boolean settle(EtcdLease lease, long sentAt, CompletableFuture<LeaseKeepAliveResponse> answer, long deadline,
                   String key) throws InterruptedException {
        try {
            LeaseKeepAliveResponse response = rpc.awaitInterruptibly(answer, deadline, key, "keep lease "
                    + Long.toHexString(lease.id()) + " alive");
            if (response.getTTL() > 0) {
                lease.confirmed(sentAt, response.getTTL());
                return true;
            }
        } catch (LockBackendException e) {
            if (!Rpc.isLeaseNotFound(e)) {
                throw e;
            }
        }
        lost(lease, new IllegalStateException("etcd lease " + Long.toHexString(lease.id())
                + " expired or was revoked"));
        return false;
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
            settle(session, sentAt, keepAliveAsync(session), rpc.deadline(), "(session)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            if (System.nanoTime() - session.aliveUntilNanos() >= 0) {
                lost(session, e);
            } else {
                log.warn("Keeping etcd session lease {} alive failed; retrying until it would expire", session, e);
            }
        }
    }

    /** Marks {@code lease} lost and reports every hold on it to the core, once. */
    void lost(EtcdLease lease, Throwable cause) {
        if (!lease.markLost()) {
            return;
        }
        synchronized (this) {
            // Sessions are found by the TTL asked for, which etcd may have raised.
            PendingSession pending = sessions.get(lease.askedTtlSeconds());
            if (pending != null && pending.future().getNow(null) == lease) {
                sessions.remove(lease.askedTtlSeconds());
            }
        }
        List<Grant> holds = new ArrayList<>(lease.grants());
        if (!holds.isEmpty()) {
            log.warn("etcd lease {} is gone: {} hold(s) on it are lost", lease, holds.size(), cause);
        }
        for (Grant grant : holds) {
            for (GrantListener listener : listeners) {
                try {
                    listener.lost(grant, cause);
                } catch (RuntimeException e) {
                    log.warn("Grant listener failed for lock '{}'; ignored", grant.key(), e);
                }
            }
        }
    }

    /**
     * Revokes a lease without waiting: its keys go with it. Retried in the background, backing
     * off from 250 ms to 5 s, until etcd confirms it (or answers that the lease is gone
     * already) or the backend closes. A put on the lease whose answer never came may still
     * land later, and on a long explicit lease that key would block its lock for the whole
     * TTL; a confirmed revoke makes such a put fail. A late revoke is harmless: every caller
     * has moved its key off the lease or given it up.
     */
    void revokeQuietly(EtcdLease lease) {
        lease.markLost();
        revokeUntilConfirmed(lease, 0);
    }

    private void revokeUntilConfirmed(EtcdLease lease, int attempt) {
        CompletableFuture<?> revoke;
        try {
            revoke = leases.revoke(lease.id());
        } catch (RuntimeException closed) {
            return; // the client is closed: nothing can be sent any more, the lease expires within its TTL
        }
        revoke.orTimeout(rpc.timeout().toMillis(), TimeUnit.MILLISECONDS).whenComplete((r, e) -> {
            if (e == null || Rpc.isLeaseNotFound(e)) {
                return;
            }
            log.debug("Revoking etcd lease {} failed (attempt {}); retrying", lease, attempt + 1, e);
            try {
                scheduler.schedule(() -> revokeUntilConfirmed(lease, attempt + 1),
                        Math.min(5000, 250L << Math.min(attempt, 5)), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                // the backend is closing: the lease expires within its TTL
            }
        });
    }

    /** Revokes a lease and waits, so its keys are gone when this returns. */
    void revoke(EtcdLease lease, String key) {
        lease.markLost();
        try {
            rpc.await(leases.revoke(lease.id()), key, "revoke lease " + Long.toHexString(lease.id()));
        } catch (LockBackendException e) {
            if (!Rpc.isLeaseNotFound(e)) {
                throw e;
            }
        }
    }

    /**
     * Revokes {@code all} and waits, the revokes sent together: their keys are gone when this
     * returns. A lease etcd no longer knows counts as revoked.
     */
    void revokeAll(List<EtcdLease> all, String key) {
        List<CompletableFuture<Void>> pending = new ArrayList<>(all.size());
        for (EtcdLease lease : all) {
            lease.markLost();
            pending.add(leases.revoke(lease.id()).handle((response, failure) -> {
                if (failure != null && !Rpc.isLeaseNotFound(failure)) {
                    throw new CompletionException(failure);
                }
                return null;
            }));
        }
        rpc.await(CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)), key,
                "revoke " + all.size() + " leases");
    }

    /** Stops keep-alives and revokes every session lease, so the server drops our holds and waiters now. */
    @Override
    public void close() {
        scheduler.shutdownNow();
        List<EtcdLease> open = new ArrayList<>();
        synchronized (this) {
            for (PendingSession pending : sessions.values()) {
                EtcdLease session = pending.future().getNow(null);
                if (session != null) {
                    open.add(session);
                }
            }
            sessions.clear();
        }
        for (EtcdLease session : open) {
            try {
                revoke(session, "(closing)");
            } catch (RuntimeException e) {
                log.warn("Revoking etcd session lease {} on close failed; it expires within {} s", session,
                        session.ttlSeconds(), e);
            }
        }
    }
}
