package dev.mortise.lock.zookeeper.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The session timeout the server granted, and what it bounds: a renewed hold is worth at most
 * two thirds of it locally (the ensemble may expire a session about its timeout after it last
 * heard of the client, and the ZooKeeper client itself gives a silent connection up after two
 * thirds of it). The timeout is negotiated: the server grants at most its
 * {@code maxSessionTimeout}, whatever the client asked for. Thread-safe.
 */
public final class SessionTimeout {

    private static final Logger log = LoggerFactory.getLogger(SessionTimeout.class);

    private final ZkCalls calls;
    private final AtomicBoolean leaseWarned = new AtomicBoolean();
    private volatile long checkedSession;
    private volatile long checkedLeaseMillis;
    /** The session timeout the server granted, as last read (0: not yet). */
    private volatile int knownTimeoutMillis;

    public SessionTimeout(ZkOps ops) {
        this.calls = ops.calls();
    }

    /**
     * Notes the session timeout the server granted for the grant's session (read once per
     * session, not per grant), so that {@link #validity} bounds renewed holds by it, and says
     * once, at INFO, when the lease is longer than that bound. The session timeout is
     * negotiated: the server grants at most its {@code maxSessionTimeout} (20 ticks by
     * default, 20 s on curator-test's server), whatever the client asked for.
     *
     * @param sessionId the session of the grant's node
     */
    public void checkLeaseAgainstSession(Duration lease, long sessionId) {
        long leaseMillis = lease.toMillis();
        if (sessionId == checkedSession && leaseMillis == checkedLeaseMillis) {
            return;
        }
        int negotiated = sessionTimeoutMillis();
        if (negotiated <= 0) {
            return;
        }
        knownTimeoutMillis = negotiated;
        checkedSession = sessionId;
        checkedLeaseMillis = leaseMillis;
        long bound = negotiated * 2L / 3;
        if (leaseMillis > bound && leaseWarned.compareAndSet(false, true)) {
            log.info("The default lease ({} ms) is longer than two thirds of the ZooKeeper session timeout the server "
                    + "granted ({} ms): a renewed hold counts as valid for at most {} ms after each renewal (the ensemble "
                    + "may end a session about its timeout after it last heard of it, and the ZooKeeper client itself "
                    + "gives a silent connection up after two thirds of it), and the watchdog renews every third of "
                    + "that. Raise the servers' maxSessionTimeout for longer validity.", leaseMillis, negotiated, bound);
        }
    }

    /**
     * What a grant or renewal with {@code lease} is worth locally: the lease, but at most two
     * thirds of the session timeout. A pause of the holder longer than that may let the
     * ensemble expire the session and grant the lock to another client before this client's
     * connection thread notices; the local validity must run out first.
     */
    public Duration validity(Duration lease) {
        int timeout = knownTimeoutMillis;
        if (timeout <= 0) {
            timeout = sessionTimeoutMillis();
            if (timeout <= 0) {
                return lease;
            }
            // Until connected the client reports the timeout asked for; keep only a granted one.
            if (calls.client().getZookeeperClient().isConnected()) {
                knownTimeoutMillis = timeout;
            }
        }
        Duration bound = Duration.ofMillis(timeout * 2L / 3);
        return bound.compareTo(lease) < 0 ? bound : lease;
    }

    /** The session timeout the server granted (the one asked for until connected); 0 if unknown. */
    public int sessionTimeoutMillis() {
        // Read live (until connected it is the timeout asked for); validity() caches it per session.
        try {
            return calls.client().getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception e) {
            log.debug("Could not read the negotiated session timeout", e);
            return 0;
        }
    }
}
