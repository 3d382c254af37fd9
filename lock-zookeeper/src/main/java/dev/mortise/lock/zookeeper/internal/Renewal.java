package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockException;
import dev.mortise.lock.spi.Grant;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The core's renewal, mapped onto the session: the session keeps renewed nodes alive by
 * itself (its heartbeats), so a renewal only confirms, for every hold at once, that the
 * client is connected and that each node exists and belongs to the current session — which
 * also catches a node deleted by someone else (an operator, a forced release).
 *
 * <p>One {@code getEphemerals} request lists the session's nodes under the root (a few if
 * the answer would not fit the client's packet limit, see {@link SessionNodes}), so a
 * period costs one request however many holds there are. Nodes the listing leaves out are
 * checked once more with {@code exists} before they are reported gone, and servers older
 * than 3.6 get one pipelined {@code exists} per hold.
 */
public final class Renewal {

    private static final Logger log = LoggerFactory.getLogger(Renewal.class);

    private final ZkOps ops;
    private final SessionGuard guard;
    private final SessionNodes nodes;
    private final AtomicBoolean leaseWarned = new AtomicBoolean();
    private volatile long checkedSession;
    private volatile long checkedLeaseMillis;
    /** The session timeout the server granted, as last read (0: not yet). */
    private volatile int knownTimeoutMillis;

    public Renewal(ZkOps ops, SessionGuard guard) {
        this.ops = ops;
        this.guard = guard;
        this.nodes = new SessionNodes(ops);
    }

    /**
     * @param lease how long the core now counts on each confirmed hold
     * @return the grants whose node is gone or belongs to an ended session
     * @throws LockBackendException if the connection is suspended or a check is not answered
     *                              in time: then nobody can tell, and the core retries
     */
    public Set<Grant> confirm(Collection<Grant> grants, Duration lease) {
        try {
            return confirmOrThrow(grants, lease);
        } catch (LockException e) {
            throw e;
        } catch (RuntimeException e) {
            // Not the server's answer: something in this client failed. Say so, rather than leave the
            // core's "the lease ran out" advice (a longer lease) as the only explanation.
            throw new LockBackendException("Renewing " + grants.size() + " ZooKeeper lock(s) failed inside the client, "
                    + "before or without a server answer (backend 'zookeeper', ensemble " + ops.ensemble() + "): " + e
                    + ". This is a bug in the ZooKeeper backend, not a short lease or a slow server: a longer lease "
                    + "does not help. Please report it with this message; the watchdog retries every period and the "
                    + "leases run out locally if it keeps failing.", null, Failures.BACKEND, e);
        }
    }

    private Set<Grant> confirmOrThrow(Collection<Grant> grants, Duration lease) {
        long session = guard.isConnected() ? guard.currentSession() : 0;
        if (session == 0) {
            throw new LockBackendException("Cannot renew " + grants.size() + " ZooKeeper lock(s): the connection is "
                    + "suspended (backend 'zookeeper'). Leases stay invalid until it is back and expire if it does not "
                    + "come back within them; check the ensemble.", null, Failures.BACKEND, null);
        }
        long sentAt = System.nanoTime();
        long deadline = sentAt + ops.timeout().toNanos();
        Set<Grant> gone = new HashSet<>();
        List<Grant> ours = new ArrayList<>(grants.size());
        List<String> paths = new ArrayList<>(grants.size());
        for (Grant grant : grants) {
            NodeRef node = grant.state();
            if (node.sessionId() != session) {
                gone.add(grant);
            } else {
                ours.add(grant);
                paths.add(node.path());
            }
        }
        // One hold (a lock service extending an explicit lease) is checked with one exists: the same one request.
        Set<String> listed = ours.size() <= 1 ? null : nodes.present(paths, guard.paths(), deadline);
        List<Grant> unlisted = ours;
        if (listed != null) {
            unlisted = new ArrayList<>();
            for (Grant grant : ours) {
                if (listed.contains(grant.<NodeRef>state().path())) {
                    guard.confirmed(grant, sentAt, lease);
                } else {
                    unlisted.add(grant);
                }
            }
        }
        if (!unlisted.isEmpty() && checkEach(unlisted, sentAt, deadline, lease, gone) && listed != null) {
            // A node the listing left out exists after all: the listing cannot be trusted here.
            nodes.distrust();
        }
        gone.forEach(guard::remove);
        return gone;
    }

    /**
     * One pipelined exists per grant: adds those whose node is gone or owned by another
     * session to {@code gone}, confirms the others.
     *
     * @return whether any node was found after all
     */
    private boolean checkEach(List<Grant> grants, long sentAt, long deadline, Duration lease, Set<Grant> gone) {
        Map<Grant, CompletableFuture<CuratorEvent>> checks = new LinkedHashMap<>();
        for (Grant grant : grants) {
            checks.put(grant, ops.existsAsync(grant.<NodeRef>state().path(), grant.key()));
        }
        boolean found = false;
        for (Map.Entry<Grant, CompletableFuture<CuratorEvent>> check : checks.entrySet()) {
            NodeRef node = check.getKey().state();
            Stat stat = ops.existsResult(check.getValue(), deadline, node.path(), check.getKey().key());
            if (stat == null || stat.getEphemeralOwner() != node.sessionId()) {
                gone.add(check.getKey());
            } else {
                found = true;
                guard.confirmed(check.getKey(), sentAt, lease);
            }
        }
        return found;
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
            if (ops.client().getZookeeperClient().isConnected()) {
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
            return ops.client().getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception e) {
            log.debug("Could not read the negotiated session timeout", e);
            return 0;
        }
    }
}
