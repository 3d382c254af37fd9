package dev.mortise.lock.zookeeper;

import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.GrantListener;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Renewals;
import dev.mortise.lock.spi.WaitDriver;
import dev.mortise.lock.spi.WaitSteps;
import dev.mortise.lock.zookeeper.internal.BatchAcquire;
import dev.mortise.lock.zookeeper.internal.KeyInspection;
import dev.mortise.lock.zookeeper.internal.LeaseExpiry;
import dev.mortise.lock.zookeeper.internal.LingerMarkers;
import dev.mortise.lock.zookeeper.internal.LockPaths;
import dev.mortise.lock.zookeeper.internal.LockQueue;
import dev.mortise.lock.zookeeper.internal.MarkerFormat;
import dev.mortise.lock.zookeeper.internal.NodeRef;
import dev.mortise.lock.zookeeper.internal.Owned;
import dev.mortise.lock.zookeeper.internal.PermitLimits;
import dev.mortise.lock.zookeeper.internal.PermitQueue;
import dev.mortise.lock.zookeeper.internal.Renewal;
import dev.mortise.lock.zookeeper.internal.SessionGuard;
import dev.mortise.lock.zookeeper.internal.SessionTimeout;
import dev.mortise.lock.zookeeper.internal.ZkOps;
import dev.mortise.lock.zookeeper.internal.ZkWaitRecords;
import org.apache.curator.framework.CuratorFramework;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The ZooKeeper backend ({@code "zookeeper"}), on Apache Curator: one ephemeral sequential
 * node per hold or waiter under a container node per key; the lowest sequence owns the
 * lock; waiters watch only their predecessor; the fencing token is the lock node's czxid.
 * Shared (read) holds queue in the same order: a shared node owns a share while no
 * exclusive node sorts before it, and watches only the last exclusive node before it.
 * Native semaphores ({@link #supportsPermits()}) queue one permit node per acquisition in the
 * same order, admitted first come first served while the counts ahead plus their own fit the
 * count every permit node stores.
 *
 * <p>Holds are bound to the ZooKeeper session, which is the lease: the core's watchdog
 * renewal confirms that the connection is up and each node still exists and belongs to the
 * session (one getEphemerals request for all holds). When the connection is SUSPENDED every hold stops being
 * valid at once; when the session is LOST every hold is reported lost; on RECONNECTED
 * with the same session a hold is valid again once its node is confirmed. Explicit
 * (non-renewed) leases additionally end on the server when they run out: this backend
 * deletes their node then.
 *
 * <p>Thread-safe; a grant may be released from any thread. Every server call is bounded
 * by the operation timeout and fails with {@link dev.mortise.lock.LockBackendException}, never hangs.
 *
 * <pre>{@code
 * LockBackend backend = ZookeeperLockBackend.builder().connectString("zk1:2181,zk2:2181,zk3:2181").build();
 * LockClient locks = LockClient.builder(backend).build();
 * }</pre>
 */
public final class ZookeeperLockBackend implements LockBackend {

    static final BackendGuarantees GUARANTEES = new BackendGuarantees(
            BackendGuarantees.LeaseModel.SESSION_BOUND, true, BackendGuarantees.Wakeup.PUSH,
            "The czxid of the lock node (the zxid of the transaction that created it): strictly increasing across "
                    + "the ensemble for as long as it keeps its transaction log; it breaks if the ensemble's data is "
                    + "wiped or restored from an older snapshot, or clients move to another ensemble.",
            Duration.ofMillis(1));

    private final CuratorFramework client;
    private final boolean ownsClient;
    private final LockPaths paths;
    private final ZkOps ops;
    private final LockQueue queue;
    private final PermitQueue permits;
    private final PermitLimits limits;
    private final BatchAcquire batch;
    private final SessionGuard guard;
    private final LeaseExpiry expiry;
    private final LingerMarkers markers;
    private final Renewal renewal;
    private final SessionTimeout timeout;
    private final KeyInspection inspection;
    private final ZkWaitRecords waitRecords;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The asynchronous waits' steps: a call in flight when the connection drops waits it out here, not on the shared threads. */
    private final java.util.concurrent.ExecutorService asyncSteps = dev.mortise.lock.zookeeper.internal.WaitThreads.pool();

    ZookeeperLockBackend(CuratorFramework client, boolean ownsClient, String rootPath, Duration operationTimeout,
                         String ensemble) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.paths = new LockPaths(rootPath);
        this.ops = new ZkOps(client, operationTimeout, ensemble);
        this.guard = new SessionGuard(ops);
        this.queue = new LockQueue(ops, paths, guard::currentSession);
        this.permits = new PermitQueue(ops, paths, queue);
        this.limits = new PermitLimits(ops, paths);
        this.batch = new BatchAcquire(ops, paths, queue);
        this.expiry = new LeaseExpiry(ops, guard);
        this.markers = new LingerMarkers(ops);
        this.renewal = new Renewal(ops, guard);
        this.timeout = new SessionTimeout(ops);
        this.inspection = new KeyInspection(ops, paths);
        this.waitRecords = new ZkWaitRecords(ops, paths);
        client.getConnectionStateListenable().addListener(guard);
    }

    /** A builder; give it either a connect string or a started {@link CuratorFramework}. */
    public static ZookeeperLockBackendBuilder builder() {
        return new ZookeeperLockBackendBuilder();
    }

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public BackendGuarantees guarantees() {
        return GUARANTEES;
    }

    /**
     * True: shared (read) holds are nodes of their own mode in the key's one queue, ordered
     * with exclusive ones by sequence (see {@code docs/zookeeper.md}, "Read-write locks").
     */
    @Override
    public boolean supportsSharedMode() {
        return true;
    }

    /**
     * True: a semaphore acquisition is one permit node in the key's queue, admitted in arrival
     * order when the counts of the nodes before it plus its own fit the stored count, which
     * every permit node carries (see {@code docs/zookeeper.md}, "Semaphores", and
     * {@code PermitQueue}). Waiters are served in arrival order.
     */
    @Override
    public boolean supportsPermits() {
        return true;
    }

    /**
     * Rewrites the count stored in every permit node of {@code key} (a listing, then one
     * pipelined read and one pipelined conditional write of every permit node, then a listing
     * that finds none created meanwhile); with no permit node nothing is stored. Each write
     * wakes the waiter watching that node.
     */
    @Override
    public void setPermits(String key, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("A semaphore needs at least 1 permit, got " + limit + " for key '" + key
                    + "' (backend 'zookeeper')");
        }
        limits.setPermits(key, limit);
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        Optional<Grant> grant = request.takesPermits() ? permits.tryAcquire(request, owned -> granted(request, owned))
                : queue.tryAcquire(request, owned -> granted(request, owned));
        return grant.map(Attempt::granted).orElseGet(() -> Attempt.busy(null));
    }

    /**
     * All or nothing in one round trip of two requests, whatever the number of keys (see
     * {@code BatchAcquire}): one multi creates every part's node, exclusive or shared, as
     * {@link #tryAcquire} would; a read-only multi sent right behind it lists every part's
     * queue. Each part must then own its key by the queue's rule, as a single request's node
     * would (a shared part: no exclusive node, held or waiting, before it); otherwise one more
     * multi deletes every node of the call and the answer is empty. Parents the server reaped
     * cost one more round trip that creates them. Grants are the single path's: token = the
     * node's czxid (all parts of one call share it: one transaction), state = the node, so
     * release, renewal, linger and inspection treat them alike.
     */
    @Override
    public List<Grant> tryAcquireAll(List<LockRequest> requests) {
        if (requests.isEmpty() || requests.stream().anyMatch(LockRequest::takesPermits)) {
            return null;
        }
        List<Owned> owned = batch.tryAcquireAll(requests);
        List<Grant> grants = new ArrayList<>(owned.size());
        for (int i = 0; i < owned.size(); i++) {
            grants.add(granted(requests.get(i), owned.get(i)));
        }
        return grants;
    }

    /**
     * Queues a node and waits, on this thread, for the queue's rule to admit it (see
     * {@link #acquireAsync}: the same steps). An interrupt ends the wait, after our node is deleted.
     */
    @Override
    public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        return WaitDriver.await(waitFor(request, wait, false), request.key());
    }

    /**
     * The same wait as {@link #acquire}, holding no thread while it sleeps: each step (a create
     * and listing, a look, a watch set) runs on a thread of this backend's own, and a sleep ends
     * when the watch left on the node waited for fires (a deletion, a data change, a connection
     * event), or, behind a lingering hold, when its marker ends; a waiter that finds the connection
     * down sleeps until it is back (at most the operation timeout). The steps run on this backend's four
     * threads ({@code WaitThreads}), not the JVM's shared ones: a step whose call was in flight when the
     * connection dropped waits it out there, up to the operation timeout. A grant's validity counts from
     * the same requests as on the blocking path; a wait that ends without a grant (ran out, failed,
     * or its answer cancelled) deletes its node and removes its watches.
     */
    @Override
    public CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
        return WaitDriver.start(this, waitFor(request, wait, true), asyncSteps);
    }

    private WaitSteps waitFor(LockRequest request, Duration wait, boolean async) {
        return request.takesPermits() ? permits.waitFor(request, wait, async, owned -> granted(request, owned))
                : queue.waitFor(request, wait, async, owned -> granted(request, owned));
    }

    private Grant granted(LockRequest request, Owned owned) {
        NodeRef node = owned.node();
        Grant grant = new Grant(request.key(), request.owner(), node.czxid(), owned.requestedAtNanos(), node);
        guard.add(grant, request.lease(), request.renewed());
        if (!request.renewed()) {
            expiry.schedule(grant, request.lease());
        } else {
            timeout.checkLeaseAgainstSession(request.lease(), node.sessionId());
        }
        return grant;
    }

    /**
     * Leaves the hold to end {@code linger} from now, even if this client closes first: the
     * node is confirmed, then a persistent marker beside it ({@link LingerMarkers}) keeps
     * every other acquirer out until the linger has passed by the server's clock, whatever
     * becomes of the session. While this client lives it deletes the node and the marker
     * when the linger ends; after it has closed, the key's next acquirer deletes the
     * expired marker.
     */
    @Override
    public boolean linger(Grant grant, Duration linger) {
        // Confirm the node first (a linger shorter than the round trip would otherwise delete it before
        // the check and look like a loss), then give it an end of its own, as an explicit lease has.
        long from = System.nanoTime();
        if (!renewal.confirm(List.of(grant), linger).isEmpty()) {
            return false;
        }
        NodeRef node = grant.state();
        try {
            return markers.leave(node, grant.owner(), linger, grant.key());
        } finally {
            // Also if the marker failed: the node then lingers while this client lives, as before.
            expiry.endAfter(grant, linger, from, MarkerFormat.path(node));
        }
    }

    /**
     * Confirms the node and applies exactly {@code lease}: a renewed hold's node lives as long as
     * the session (its heartbeats; ZooKeeper has no per-node TTL) and this backend deletes it once
     * it goes unconfirmed for {@code lease}; an explicit lease's node is deleted by this backend
     * {@code lease} after the request, and a renewal moves that deletion, so an extend applies
     * what it asks. What the session can take away sooner (the ensemble may expire it about one
     * session timeout after it last heard of the client, whatever was asked) is bounded by
     * {@link #validity}, not by a shorter applied lease: an extend longer than that bound is
     * applied, and counts locally for at most the bound after each confirmation. Grants likewise
     * carry no applied lease of their own: the one asked for is in force.
     */
    @Override
    public Optional<Duration> renew(Grant grant, Duration lease) {
        // An explicit lease's end is kept here, not on the server: move it first, then confirm the node.
        if (!expiry.extend(grant, lease, System.nanoTime())) {
            return Optional.empty();
        }
        return renewal.confirm(List.of(grant), lease).isEmpty() ? Optional.of(lease) : Optional.empty();
    }

    /**
     * Confirms every hold with one request (getEphemerals; a few if the answer would not fit
     * the client's packet limit): the connection is up, the node exists and belongs to the
     * current session. Throws (so the core retries and lets leases expire locally) when the
     * connection is suspended or a check is not answered. The holds confirmed keep {@code lease}
     * (as {@link #renew} applies it).
     */
    @Override
    public Renewals renewAll(Collection<Grant> grants, Duration lease) {
        return Renewals.of(renewal.confirm(grants, lease), lease);
    }

    @Override
    public boolean release(Grant grant) {
        NodeRef node = grant.state();
        // Forget the hold only once the server has answered: if the delete fails (server down),
        // the session guard and the lease expiry still own the node and delete it later.
        boolean deleted = ops.deleteHold(node.path(), grant.key(), node.sessionId(), guard::currentSession);
        expiry.cancel(grant);
        guard.remove(grant);
        return deleted;
    }

    /**
     * Reads the key's queue: one listing of its parent, then, pipelined, one getData per
     * holding node and per lingering-hold marker. Holders are the nodes that hold by the
     * queue's rule (the first node if exclusive; else the shared nodes before the first
     * exclusive one), with the owner stored as their data and their czxid as the token. Their
     * remaining lease is empty (a hold lives as long as its session; an explicit lease is ended
     * by the holder's own client, not by the server), except for a hold left to linger, whose
     * marker gives its end. A marker in force whose node is gone (its client closed) is the
     * holder itself, and every queued node then waits for it. Nothing is created, changed,
     * deleted or watched. Reads are served by the connected server, as every read of this
     * backend is (no sync).
     */
    @Override
    public KeyState inspect(String key) {
        return inspection.inspect(key);
    }

    /** Present: an ephemeral node per holder id under {@code <root>/#waits} ({@link ZkWaitRecords}, docs/zookeeper.md). */
    @Override
    public Optional<dev.mortise.lock.spi.WaitRecords> waitRecords() {
        return Optional.of(waitRecords);
    }

    @Override
    public void addGrantListener(GrantListener listener) {
        guard.addListener(listener);
    }

    @Override
    public void ping() {
        ops.ping(paths.root());
    }

    /** Watch notifications that woke waiters of this backend so far (what the herd test measures). */
    long watchNotifications() {
        return queue.notifications();
    }

    /**
     * The lease, but at most two thirds of the session timeout the server granted: the
     * ensemble may expire a session about its timeout after it last heard of it, and a holder
     * paused for that long must find its lease invalid before its connection thread notices
     * the session is gone (as the ZooKeeper client gives a silent connection up after two
     * thirds of the timeout).
     */
    @Override
    public Duration validity(Duration lease) {
        return timeout.validity(lease);
    }

    /**
     * The session timeout the server granted: two thirds of it bound what a renewed hold is
     * worth locally ({@link #validity}). The
     * server grants at most its {@code maxSessionTimeout} (20 ticks by default), whatever
     * was asked for; until the client has connected this is the timeout asked for.
     *
     * @throws dev.mortise.lock.LockBackendException if the client is closed
     */
    public Duration sessionTimeout() {
        int millis = timeout.sessionTimeoutMillis();
        if (millis <= 0) {
            throw new dev.mortise.lock.LockBackendException("Cannot read the ZooKeeper session timeout: the client is "
                    + "closed or not started (backend 'zookeeper').", null, "zookeeper", null);
        }
        return Duration.ofMillis(millis);
    }

    /** The parent node under which {@code key}'s lock nodes live (for operators and tests). */
    public String lockPath(String key) {
        return paths.parent(key);
    }

    /**
     * Stops watching the connection and, if this backend built the client, closes it —
     * which ends the session and so every node it holds. A client you supplied stays open.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        client.getConnectionStateListenable().removeListener(guard);
        expiry.shutdown();
        asyncSteps.shutdown();
        ops.close();
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "ZookeeperLockBackend[root=" + paths.root() + ", holds=" + guard.size() + "]";
    }
}
