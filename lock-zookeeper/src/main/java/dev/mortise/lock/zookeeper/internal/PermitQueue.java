package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Native semaphores on a key's one queue: every acquisition creates one ephemeral sequential
 * permit node ({@link PermitNodes}: its count in the name, count, limit and owner in its data)
 * under the key's parent, beside (and ordered with) lock nodes, by {@link LockQueue#enqueue}.
 *
 * <p><b>Admission (FIFO).</b> A permit node is granted when no lock node (exclusive, or shared
 * without permits) sorts before it and the counts of all nodes before it plus its own are at
 * most the stored count. Nodes ahead that still wait are counted too, so a waiter for many is
 * never overtaken by a later waiter for few, and the holders are always a prefix of the queue.
 *
 * <p><b>The stored count</b> is the limit in the data of the earliest permit node (each node
 * carries one, so it lives exactly as long as the holds: the last holder's node takes it
 * along). A request whose node finds an earlier node with another count is refused on arrival
 * ({@link PermitCountMismatchException}) and its node deleted; a request already waiting
 * follows the stored count. {@link #setPermits} rewrites the limit in every permit node.
 *
 * <p><b>Waking, no herd, no missed wake-up.</b> A waiter that is the first waiter (every node
 * ahead of it holds) watches every node ahead of it: any of their deletions may admit it, and
 * no other waiter watches them. A later waiter watches only the node just ahead of it (a
 * waiter too): it can be admitted only after that one is (holders are a prefix), and that one,
 * once granted after a wait, touches its own node's data to pass the wake-up on (a node granted
 * on its first look needs not: a node behind it lists after it and sees it holding). A waiter
 * behind a lock node watches the last lock node ahead of it. Every watch is set in the same
 * pipelined round as, and before, the listing it is checked against (ZooKeeper answers a
 * session's requests in order), so a change after that listing always fires a watch.
 * A {@link #setPermits} rewrites every node, so it wakes every waiter once.
 *
 * <p>A hold left to linger ({@link LingerMarkers}) keeps the next admission waiting until its
 * marker expires, as in the lock queue. Nodes of requests that fail, time out or are
 * interrupted are deleted before the call returns. Thread-safe.
 */
public final class PermitQueue {

    private static final Logger log = LoggerFactory.getLogger(PermitQueue.class);
    private static final int SET_PERMITS_ROUNDS = 5;

    private final ZkOps ops;
    private final LockPaths paths;
    private final LockQueue queue;
    private final LongSupplier currentSession;
    private final LingerMarkers lingering;
    private final AtomicLong notifications = new AtomicLong();

    /** @param queue the key's lock queue, whose create (with its parent handling) and clean-up this shares */
    public PermitQueue(ZkOps ops, LockPaths paths, LockQueue queue, LongSupplier currentSession) {
        this.ops = ops;
        this.paths = paths;
        this.queue = queue;
        this.currentSession = currentSession;
        this.lingering = new LingerMarkers(ops);
    }

    /**
     * One attempt that never waits. A look at the queue first (a listing, and the earliest
     * node's data if there are permit nodes) answers "busy" or refuses a count mismatch with no
     * write; otherwise the node is created and kept only if admitted.
     *
     * @throws PermitCountMismatchException if permit holds exist under another count
     */
    public Optional<LockQueue.Owned> tryAcquire(LockRequest request) {
        String key = request.key();
        Permits permits = request.permits();
        String parent = paths.parent(key);
        List<String> nodes = LockPaths.sortedLockNodes(ops.children(parent, key));
        if (!nodes.isEmpty()) {
            if (PermitNodes.anyNonPermit(nodes)) {
                return Optional.empty();
            }
            CuratorEvent earliest = ops.dataResult(ops.dataAsync(parent + "/" + nodes.get(0), key), ops.deadline(),
                    parent + "/" + nodes.get(0), key);
            int stored = earliest == null ? -1 : PermitNodes.limitOf(earliest.getData());
            if (stored > 0 && stored != permits.limit()) {
                throw new PermitCountMismatchException(key, Failures.BACKEND, stored, permits.limit());
            }
            int limit = stored > 0 ? stored : permits.limit();
            if (PermitNodes.countsBefore(nodes, nodes.size()) + permits.count() > limit) {
                return Optional.empty();
            }
        }
        try {
            return acquire(request, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * Queues and waits up to {@code wait} for our permit node to be admitted.
     *
     * @throws PermitCountMismatchException if, on arrival, permit holds exist under another count
     * @throws InterruptedException         if interrupted while waiting; our node is deleted first
     */
    public Optional<LockQueue.Owned> acquire(LockRequest request, Duration wait) throws InterruptedException {
        String key = request.key();
        int count = request.permits().count();
        int limit = request.permits().limit();
        long requestedAt = System.nanoTime();
        long deadline = Deadlines.after(requestedAt, wait);
        String parent = paths.parent(key);
        LockQueue.Queued queued = queue.enqueue(parent, key, PermitNodes.nodeName(count),
                PermitNodes.data(count, limit, request.owner()));
        long answeredAt = System.nanoTime();
        NodeRef node = queued.node();
        List<String> listing = queued.listing();
        PermitWake wake = new PermitWake(notifications);
        boolean owned = false;
        boolean arrival = true;
        boolean waited = false;
        String earliestSeen = null;
        Set<String> want = Set.of();
        try {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for permits of '" + key + "'");
                }
                // One pipelined round: the watches wanted, then the listing, then the reads it likely needs.
                wake.clear();
                long roundDeadline = ops.deadline();
                Map<String, CompletableFuture<CuratorEvent>> watches = new LinkedHashMap<>();
                for (String path : want) {
                    if (wake.arm(path)) {
                        watches.put(path, ops.watchAsync(path, wake, key));
                    }
                }
                long sentAt = listing == null ? System.nanoTime() : requestedAt;
                CompletableFuture<CuratorEvent> listed = listing == null ? ops.childrenAsync(parent, key) : null;
                String guessPath = earliestSeen == null || earliestSeen.equals(node.name()) ? null
                        : parent + "/" + earliestSeen;
                CompletableFuture<CuratorEvent> guessRead = guessPath == null ? null : ops.dataAsync(guessPath, key);
                CompletableFuture<CuratorEvent> ownRead = waited ? ops.dataAsync(node.path(), key) : null;
                for (Map.Entry<String, CompletableFuture<CuratorEvent>> watch : watches.entrySet()) {
                    if (ops.watchResult(watch.getValue(), roundDeadline, watch.getKey(), key) == null) {
                        wake.disarm(watch.getKey()); // already gone: no watch was set, the listing shows it
                    }
                }
                Set<String> armedForListing = wake.armed();
                if (listed != null) {
                    listing = ops.childrenResult(listed, roundDeadline, parent, key);
                }
                List<String> sorted = LockPaths.sortedLockNodes(listing);
                List<String> markers = LingerMarkers.among(listing);
                listing = null;
                CuratorEvent guessed = guessRead == null ? null : ops.dataResult(guessRead, roundDeadline, guessPath, key);
                CuratorEvent own = ownRead == null ? null : ops.dataResult(ownRead, roundDeadline, node.path(), key);
                int at = sorted.indexOf(node.name());
                // After an expiry the server may still show our old node for a while: it must not win.
                if (at < 0 || (ownRead != null && own == null) || node.sessionId() != currentSession.getAsLong()) {
                    throw Failures.sessionEndedWhileWaiting(key, node.path());
                }

                int lastLock = -1;
                for (int i = 0; i < at; i++) {
                    if (!PermitNodes.isPermit(sorted.get(i))) {
                        lastLock = i;
                    }
                }
                Set<String> next;
                if (lastLock >= 0) {
                    // A lock hold or waiter ahead: permits are never granted beside it; wait for the last one.
                    next = Set.of(parent + "/" + sorted.get(lastLock));
                } else {
                    String earliest = sorted.get(0);
                    int stored;
                    if (at == 0) {
                        stored = own == null ? limit : positiveOr(PermitNodes.limitOf(own.getData()), limit);
                    } else {
                        CuratorEvent read = earliest.equals(earliestSeen) ? guessed
                                : ops.dataResult(ops.dataAsync(parent + "/" + earliest, key), ops.deadline(),
                                parent + "/" + earliest, key);
                        if (read == null) {
                            earliestSeen = null; // released since the listing: look again at once
                            continue;
                        }
                        int fallback = own == null ? limit : positiveOr(PermitNodes.limitOf(own.getData()), limit);
                        stored = positiveOr(PermitNodes.limitOf(read.getData()), fallback);
                    }
                    earliestSeen = earliest;
                    if (arrival && stored != limit) {
                        throw new PermitCountMismatchException(key, Failures.BACKEND, stored, limit);
                    }
                    if (PermitNodes.countsBefore(sorted, at) + count <= stored) {
                        long lingered = lingering.remainingMillis(parent, markers,
                                LingerMarkers.serverNowAtLeast(node, answeredAt), key);
                        if (lingered == 0) {
                            owned = true;
                            if (waited && at + 1 < sorted.size()) {
                                passWakeUpOn(node, own, key);
                            }
                            return Optional.of(new LockQueue.Owned(node, sentAt));
                        }
                        arrival = false;
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            return Optional.empty();
                        }
                        // Admitted by count, behind a hold left to linger past its session: wait for its end.
                        TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(lingered)));
                        want = Set.of();
                        continue;
                    }
                    if (PermitNodes.admitted(sorted, stored) >= at) {
                        // The first waiter: every node ahead holds, and any of them leaving may admit us.
                        Set<String> ahead = new LinkedHashSet<>();
                        for (int i = 0; i < at; i++) {
                            ahead.add(parent + "/" + sorted.get(i));
                        }
                        next = ahead;
                    } else {
                        // A waiter ahead of us must be admitted first; it passes the wake-up on.
                        next = Set.of(parent + "/" + sorted.get(at - 1));
                    }
                }
                arrival = false;
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                waited = true;
                for (String path : armedForListing) {
                    if (!next.contains(path)) {
                        ops.unwatch(path, wake);
                        wake.disarm(path);
                    }
                }
                if (armedForListing.containsAll(next)) {
                    // Every node we depend on was watched before this listing: any change since fires.
                    wake.await(left);
                }
                // Otherwise the next round sets the missing watches, then lists again.
                want = next;
            }
        } finally {
            for (String path : wake.armed()) {
                ops.unwatch(path, wake);
            }
            if (!owned) {
                queue.deleteOurNode(node, key);
            }
        }
    }

    /**
     * Touches our node's data (same bytes, only if unchanged since {@code own} was read) so
     * that a waiter watching it, which could be admitted only after us, looks again. A
     * version conflict means something else (a new stored count) changed it and so already
     * woke that waiter. A failure is logged: that waiter then looks again when a node ahead
     * of it goes.
     */
    private void passWakeUpOn(NodeRef node, CuratorEvent own, String key) {
        try {
            ops.setDataResult(ops.setDataAsync(node.path(), own.getData(), own.getStat().getVersion(), key),
                    ops.deadline(), node.path(), key);
        } catch (RuntimeException e) {
            log.debug("Could not touch permit node {} to wake the waiter behind it", node.path(), e);
        }
    }

    /**
     * Rewrites the stored count in every permit node of {@code key} (each read, then written
     * only if unchanged since; pipelined), then lists again for nodes created meanwhile with
     * the old count, a few rounds at most. With no permit node, nothing is stored and nothing
     * is written. Every write wakes the waiter watching that node, which then follows the new
     * count.
     */
    public void setPermits(String key, int limit) {
        String parent = paths.parent(key);
        Set<String> done = new HashSet<>();
        for (int round = 0; round < SET_PERMITS_ROUNDS; round++) {
            long deadline = ops.deadline();
            List<String> todo = new ArrayList<>();
            for (String node : LockPaths.sortedLockNodes(ops.children(parent, key))) {
                if (PermitNodes.isPermit(node) && !done.contains(node)) {
                    todo.add(node);
                }
            }
            if (todo.isEmpty()) {
                return;
            }
            List<CompletableFuture<CuratorEvent>> reads = new ArrayList<>(todo.size());
            for (String node : todo) {
                reads.add(ops.dataAsync(parent + "/" + node, key));
            }
            Map<String, CompletableFuture<CuratorEvent>> writes = new LinkedHashMap<>();
            for (int i = 0; i < todo.size(); i++) {
                String path = parent + "/" + todo.get(i);
                CuratorEvent read = ops.dataResult(reads.get(i), deadline, path, key);
                if (read == null || PermitNodes.limitOf(read.getData()) == limit) {
                    done.add(todo.get(i));
                    continue;
                }
                Stat stat = read.getStat();
                byte[] data = PermitNodes.data(PermitNodes.countOf(todo.get(i)), limit,
                        PermitNodes.ownerOf(read.getData())).getBytes(StandardCharsets.UTF_8);
                writes.put(todo.get(i), ops.setDataAsync(path, data, stat.getVersion(), key));
            }
            for (Map.Entry<String, CompletableFuture<CuratorEvent>> write : writes.entrySet()) {
                String path = parent + "/" + write.getKey();
                if (ops.setDataResult(write.getValue(), deadline, path, key)) {
                    done.add(write.getKey());
                } else if (ops.dataResult(ops.dataAsync(path, key), ops.deadline(), path, key) == null) {
                    done.add(write.getKey()); // released
                } // else changed meanwhile (an admission signal): read and write it again next round
            }
        }
        log.debug("setPermits({}) for '{}' still found new permit nodes after {} rounds; their requests follow the "
                + "stored count of the earliest node", limit, key, SET_PERMITS_ROUNDS);
    }

    /** Watch notifications received by permit waiters so far. */
    public long notifications() {
        return notifications.get();
    }

    private static int positiveOr(int value, int fallback) {
        return value > 0 ? value : fallback;
    }
}
