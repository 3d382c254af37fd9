package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.options.LeaseOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * Grants, keeps alive and revokes leases. Renewed holds share one session lease per TTL
 * ({@link SessionLeases}), kept alive every third of its TTL by one daemon thread (or by the
 * watchdog's renewals while there are holds to renew); when etcd says it is gone, or it
 * could not be confirmed before it would have run out, every hold on it is reported lost
 * through the core's {@link GrantListener}s at once. Explicit-lease holds get a lease of
 * their own. Thread-safe.
 */
public final class LeaseKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final Lease leases;
    private final Rpc rpc;
    private final List<GrantListener> listeners = new CopyOnWriteArrayList<>();
    private final ScheduledThreadPoolExecutor scheduler;
    private final SessionLeases sessions;
    private final LeaseRevokes revokes;
    private final OwnLeases own;

    public LeaseKeeper(Lease leases, KV kv, KeySpace keys, Rpc rpc) {
        this.leases = leases;
        this.rpc = rpc;
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "mortise-etcd-keepalive");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        this.sessions = new SessionLeases(this, leases, kv, keys, rpc, scheduler);
        this.revokes = new LeaseRevokes(leases, rpc, scheduler);
        this.own = new OwnLeases(leases, rpc, revokes);
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

    /** The live session lease for renewed holds of {@code lease} ({@link SessionLeases#session}). */
    EtcdLease session(Duration lease, String key) {
        return sessions.session(lease, key);
    }

    /** A lease of its own for one explicit-lease hold ({@link OwnLeases#grant}). */
    EtcdLease perLock(Duration lease, String key) {
        return own.grant(lease, key);
    }

    /** {@code count} leases of their own, granted in one round trip ({@link OwnLeases#grantAll}). */
    List<EtcdLease> perLock(Duration lease, int count, String key) {
        return own.grantAll(lease, count, key);
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
            if (!EtcdErrors.isLeaseNotFound(e)) {
                throw e;
            }
        }
        lost(lease, new IllegalStateException("etcd lease " + Long.toHexString(lease.id())
                + " expired or was revoked"));
        return false;
    }

    /** Marks {@code lease} lost and reports every hold on it to the core, once. */
    void lost(EtcdLease lease, Throwable cause) {
        if (!lease.markLost()) {
            return;
        }
        sessions.forget(lease);
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

    /** Revokes a lease without waiting, until etcd confirms ({@link LeaseRevokes#revokeQuietly}). */
    void revokeQuietly(EtcdLease lease) {
        revokes.revokeQuietly(lease);
    }

    /** Revokes a lease and waits, so its keys are gone when this returns. */
    void revoke(EtcdLease lease, String key) {
        revokes.revoke(lease, key);
    }

    /** Revokes {@code all} and waits, the revokes sent together ({@link LeaseRevokes#revokeAll}). */
    void revokeAll(List<EtcdLease> all, String key) {
        revokes.revokeAll(all, key);
    }

    /** Stops keep-alives and revokes every session lease, so the server drops our holds and waiters now. */
    @Override
    public void close() {
        scheduler.shutdownNow();
        for (EtcdLease session : sessions.clear()) {
            try {
                revoke(session, "(closing)");
            } catch (RuntimeException e) {
                log.warn("Revoking etcd session lease {} on close failed; it expires within {} s", session,
                        session.ttlSeconds(), e);
            }
        }
    }
}
