package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Maps the session onto the holds it carries. SUSPENDED: ownership is uncertain, every
 * hold is reported suspended at once. LOST (the session expired, or Curator gave up on it
 * after the session timeout): every hold is lost but those of a new session the client is
 * already connected with when the LOST arrives. RECONNECTED: holds of the same session
 * are restored once the server confirms their node still exists; holds of an earlier
 * session are lost, and so are renewed holds whose lease ran out while the connection was
 * down (the core has already given them up, so their nodes are deleted rather than left to
 * block others until the session ends).
 */
public final class SessionGuard implements ConnectionStateListener {

    private static final Logger log = LoggerFactory.getLogger(SessionGuard.class);

    private final ZkOps ops;
    private final Map<String, Held> holds = new ConcurrentHashMap<>();
    private final List<GrantListener> listeners = new CopyOnWriteArrayList<>();
    /** Bumped on every state change, so a late confirmation never restores across a newer suspension. */
    private final AtomicLong epoch = new AtomicLong();

    /** A hold this backend knows, with the last time the server confirmed it. */
    private static final class Held {
        final Grant grant;
        final boolean renewed;
        volatile long leaseNanos;
        volatile long confirmedAtNanos;

        Held(Grant grant, Duration lease, boolean renewed) {
            this.grant = grant;
            this.leaseNanos = lease.toNanos();
            this.renewed = renewed;
            this.confirmedAtNanos = grant.requestedAtNanos();
        }
    }

    public SessionGuard(ZkOps ops) {
        this.ops = ops;
    }

    public void addListener(GrantListener listener) {
        listeners.add(listener);
    }

    /** Starts guarding a new hold with its lease; {@code renewed} as in the request. */
    public void add(Grant grant, Duration lease, boolean renewed) {
        holds.put(path(grant), new Held(grant, lease, renewed));
    }

    public void remove(Grant grant) {
        Held held = holds.get(path(grant));
        if (held != null && held.grant.equals(grant)) {
            holds.remove(path(grant), held);
        }
    }

    /**
     * Records that the server confirmed the hold in a round trip sent at {@code sentAtNanos};
     * it is now kept for {@code lease} from then.
     */
    public void confirmed(Grant grant, long sentAtNanos, Duration lease) {
        Held held = holds.get(path(grant));
        if (held != null && sentAtNanos - held.confirmedAtNanos > 0) {
            held.leaseNanos = lease.toNanos();
            held.confirmedAtNanos = sentAtNanos;
        }
    }

    public int size() {
        return holds.size();
    }

    /** The node paths of every hold this backend guards (a live view). */
    public java.util.Collection<String> paths() {
        return holds.keySet();
    }

    /** The current session id, or 0 if there is no live handle. */
    public long currentSession() {
        // getZooKeeper() also reports (once) an exception queued by a background operation;
        // that says nothing about the session, so ask again.
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return ops.calls().client().getZookeeperClient().getZooKeeper().getSessionId();
            } catch (Exception e) {
                log.debug("Reading the session id failed; asking again", e);
            }
        }
        return 0;
    }

    public boolean isConnected() {
        return ops.calls().client().getZookeeperClient().isConnected();
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState state) {
        long now = epoch.incrementAndGet();
        switch (state) {
            case SUSPENDED, READ_ONLY -> forEachHold(held -> listeners.forEach(l -> l.suspended(held.grant)));
            case LOST -> loseAllButLive();
            case RECONNECTED, CONNECTED -> confirmAll(now);
            default -> {
            }
        }
    }

    /**
     * Loses every hold but those of the live session. LOST is delivered on Curator's event
     * thread and may come late: by then the client can be connected again in a new session and
     * have been granted holds there, which the ended session's LOST says nothing about.
     */
    private void loseAllButLive() {
        LockBackendException cause = new LockBackendException("The ZooKeeper session of this lock ended "
                + "(connection state LOST): its ephemeral node is, or will shortly be, deleted by the server "
                + "(backend 'zookeeper'). Acquire again; if this repeats, raise the session timeout or look "
                + "for long GC pauses and network partitions.", null, Failures.BACKEND, null);
        long live = liveSession();
        forEachHold(held -> {
            if (live == 0 || held.grant.<NodeRef>state().sessionId() != live) {
                lose(held, cause);
            }
        });
    }

    /** The session id of the client's handle if that handle is connected now, else 0. */
    private long liveSession() {
        try {
            ZooKeeper handle = ops.calls().client().getZookeeperClient().getZooKeeper();
            return handle.getState() == ZooKeeper.States.CONNECTED ? handle.getSessionId() : 0;
        } catch (Exception e) {
            log.debug("Reading the client's session failed; counting it as not connected", e);
            return 0;
        }
    }

    private void confirmAll(long asOf) {
        long session = currentSession();
        forEachHold(held -> {
            NodeRef node = held.grant.state();
            if (node.sessionId() != session) {
                lose(held, new LockBackendException("Reconnected to ZooKeeper with a new session: the session that "
                        + "held lock '" + Failures.abbreviate(held.grant.key()) + "' expired (backend 'zookeeper'). "
                        + "Acquire again.", held.grant.key(), Failures.BACKEND, null));
            } else if (held.renewed && System.nanoTime() - held.confirmedAtNanos > held.leaseNanos) {
                ops.deletes().deleteLater(node.path());
                lose(held, new LockBackendException("Lock '" + Failures.abbreviate(held.grant.key()) + "' was not "
                        + "confirmed within its lease while the connection was suspended (backend 'zookeeper'); its "
                        + "node was deleted on reconnecting. Acquire again.", held.grant.key(), Failures.BACKEND, null));
            } else {
                confirmOne(held, node, asOf);
            }
        });
    }

    /**
     * Deletes the nodes of renewed holds that were not confirmed within their lease (the
     * renewals failed or timed out): the core has already marked them expired, and their
     * node would otherwise keep the lock from others until the lease is closed or the
     * session ends. A hold the core still counts as valid is never touched: its validity
     * ends a drift allowance before its lease does.
     */
    public void sweepUnconfirmed() {
        long now = System.nanoTime();
        forEachHold(held -> {
            if (held.renewed && now - held.confirmedAtNanos > held.leaseNanos) {
                ops.deletes().deleteLater(held.grant.<NodeRef>state().path());
                lose(held, new LockBackendException("Lock '" + Failures.abbreviate(held.grant.key()) + "' was not "
                        + "confirmed by ZooKeeper within its lease (backend 'zookeeper'); its node was deleted. "
                        + "Acquire again; check the ensemble's health if renewals keep failing.", held.grant.key(),
                        Failures.BACKEND, null));
            }
        });
    }

    private void confirmOne(Held held, NodeRef node, long asOf) {
        ops.reads().existsAsync(node.path(), held.grant.key()).whenComplete((event, failure) -> {
            if (failure != null || epoch.get() != asOf) {
                return; // a newer state change decides
            }
            if (event.getResultCode() == KeeperException.Code.OK.intValue()
                    && event.getStat().getEphemeralOwner() == node.sessionId()) {
                // Restoring does not extend the core's validity, so neither does it extend ours.
                listeners.forEach(l -> l.restored(held.grant));
            } else if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                lose(held, new LockBackendException("After reconnecting, the node of lock '"
                        + Failures.abbreviate(held.grant.key()) + "' was gone (backend 'zookeeper'): it was deleted "
                        + "while the connection was suspended. Acquire again.", held.grant.key(), Failures.BACKEND,
                        null));
            }
        });
    }

    private void lose(Held held, Throwable cause) {
        if (holds.remove(path(held.grant), held)) {
            for (GrantListener listener : listeners) {
                try {
                    listener.lost(held.grant, cause);
                } catch (RuntimeException e) {
                    log.warn("Grant listener failed for lock '{}'", held.grant.key(), e);
                }
            }
        }
    }

    private void forEachHold(Consumer<Held> action) {
        for (Held held : new ArrayList<>(holds.values())) {
            try {
                action.accept(held);
            } catch (RuntimeException e) {
                log.warn("Handling a connection change for lock '{}' failed", held.grant.key(), e);
            }
        }
    }

    private static String path(Grant grant) {
        return grant.<NodeRef>state().path();
    }
}
