package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Maps the session onto the holds it carries. SUSPENDED: ownership is uncertain, every
 * hold is reported suspended at once. LOST (the session expired, or Curator gave up on it
 * after the session timeout): every hold is lost. RECONNECTED: holds of the same session
 * are restored once the server confirms their node still exists; holds of an earlier
 * session are lost.
 */
public final class SessionGuard implements ConnectionStateListener {

    private static final Logger log = LoggerFactory.getLogger(SessionGuard.class);

    private final ZkOps ops;
    private final Map<String, Grant> holds = new ConcurrentHashMap<>();
    private final List<GrantListener> listeners = new CopyOnWriteArrayList<>();
    /** Bumped on every state change, so a late confirmation never restores across a newer suspension. */
    private final AtomicLong epoch = new AtomicLong();

    public SessionGuard(ZkOps ops) {
        this.ops = ops;
    }

    public void addListener(GrantListener listener) {
        listeners.add(listener);
    }

    public void add(Grant grant) {
        holds.put(grant.<NodeRef>state().path(), grant);
    }

    public void remove(Grant grant) {
        holds.remove(grant.<NodeRef>state().path(), grant);
    }

    public int size() {
        return holds.size();
    }

    /** The current session id, or 0 if there is no live handle. */
    public long currentSession() {
        // getZooKeeper() also reports (once) an exception queued by a background operation;
        // that says nothing about the session, so ask again.
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return ops.client().getZookeeperClient().getZooKeeper().getSessionId();
            } catch (Exception e) {
                log.debug("Reading the session id failed; asking again", e);
            }
        }
        return 0;
    }

    public boolean isConnected() {
        return ops.client().getZookeeperClient().isConnected();
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState state) {
        long now = epoch.incrementAndGet();
        switch (state) {
            case SUSPENDED, READ_ONLY -> forEachHold(grant -> listeners.forEach(l -> l.suspended(grant)));
            case LOST -> {
                LockBackendException cause = new LockBackendException("The ZooKeeper session of this lock ended "
                        + "(connection state LOST): its ephemeral node is, or will shortly be, deleted by the server "
                        + "(backend 'zookeeper'). Acquire again; if this repeats, raise the session timeout or look "
                        + "for long GC pauses and network partitions.", null, Failures.BACKEND, null);
                forEachHold(grant -> lose(grant, cause));
            }
            case RECONNECTED, CONNECTED -> confirm(now);
            default -> {
            }
        }
    }

    private void confirm(long asOf) {
        long session = currentSession();
        forEachHold(grant -> {
            NodeRef node = grant.state();
            if (node.sessionId() != session) {
                lose(grant, new LockBackendException("Reconnected to ZooKeeper with a new session: the session that "
                        + "held lock '" + Failures.abbreviate(grant.key()) + "' expired (backend 'zookeeper'). "
                        + "Acquire again.", grant.key(), Failures.BACKEND, null));
                return;
            }
            ops.existsAsync(node.path(), grant.key()).whenComplete((event, failure) -> {
                if (failure != null || epoch.get() != asOf) {
                    return; // a newer state change decides
                }
                if (event.getResultCode() == KeeperException.Code.OK.intValue()
                        && event.getStat().getEphemeralOwner() == node.sessionId()) {
                    listeners.forEach(l -> l.restored(grant));
                } else if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                    lose(grant, new LockBackendException("After reconnecting, the node of lock '"
                            + Failures.abbreviate(grant.key()) + "' was gone (backend 'zookeeper'): it was deleted "
                            + "while the connection was suspended. Acquire again.", grant.key(), Failures.BACKEND, null));
                }
            });
        });
    }

    private void lose(Grant grant, Throwable cause) {
        if (holds.remove(grant.<NodeRef>state().path(), grant)) {
            for (GrantListener listener : listeners) {
                try {
                    listener.lost(grant, cause);
                } catch (RuntimeException e) {
                    log.warn("Grant listener failed for lock '{}'", grant.key(), e);
                }
            }
        }
    }

    private void forEachHold(java.util.function.Consumer<Grant> action) {
        for (Grant grant : new ArrayList<>(holds.values())) {
            try {
                action.accept(grant);
            } catch (RuntimeException e) {
                log.warn("Handling a connection change for lock '{}' failed", grant.key(), e);
            }
        }
    }
}
