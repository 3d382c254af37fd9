package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockException;
import dev.mortise.lock.spi.Grant;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.data.Stat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

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

    private final ZkOps ops;
    private final SessionGuard guard;
    private final SessionNodes nodes;

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
                    + "before or without a server answer (backend 'zookeeper', ensemble " + ops.calls().ensemble() + "): " + e
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
        long deadline = sentAt + ops.calls().timeout().toNanos();
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
            checks.put(grant, ops.reads().existsAsync(grant.<NodeRef>state().path(), grant.key()));
        }
        boolean found = false;
        for (Map.Entry<Grant, CompletableFuture<CuratorEvent>> check : checks.entrySet()) {
            NodeRef node = check.getKey().state();
            Stat stat = ops.reads().existsResult(check.getValue(), deadline, node.path(), check.getKey().key());
            if (stat == null || stat.getEphemeralOwner() != node.sessionId()) {
                gone.add(check.getKey());
            } else {
                found = true;
                guard.confirmed(check.getKey(), sentAt, lease);
            }
        }
        return found;
    }
}
