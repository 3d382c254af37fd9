package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.PermitCountMismatchException;
import dev.mortise.lock.spi.LockRequest;
import org.apache.curator.framework.api.CuratorEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The semaphore's rule, for one permit node ({@link PermitNodes}) in a key's queue (see
 * {@link PermitQueue} for the whole protocol). Admitted first come first served: when no
 * lock node sorts before it and the counts of all nodes before it plus its own fit the stored
 * count (the limit in the earliest permit node's data). Waits for any change of the nodes it
 * depends on: the last lock node ahead; as the first waiter, every holder ahead; else the
 * waiter just ahead, which passes the wake-up on once admitted ({@link #admitted}).
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
 * A {@link PermitLimits#setPermits} rewrites every node, so it wakes every waiter once.
 *
 * <p>Keeps what earlier looks learned: whether this is still the arrival (a count mismatch
 * is refused only then; a request already waiting follows the stored count), whether it has
 * waited (then its own node is read with each look, to see a new stored count and to pass the
 * wake-up on), and the earliest node seen (read again with each look, pipelined). Used by one
 * wait, one step at a time (not always on the same thread: the wait's driver orders the steps).
 */
final class PermitAdmission implements Admission {

    private static final Logger log = LoggerFactory.getLogger(PermitAdmission.class);

    private final NodeReads reads;
    private final ZkCalls calls;
    private final LockRequest request;
    private final int count;
    private final int limit;
    private boolean arrival = true;
    private boolean waited;
    private String earliestSeen;
    private String guessPath;
    private CompletableFuture<CuratorEvent> guessRead;
    private CompletableFuture<CuratorEvent> ownRead;
    private CuratorEvent own;

    PermitAdmission(ZkOps ops, LockRequest request) {
        this.reads = ops.reads();
        this.calls = ops.calls();
        this.request = request;
        this.count = request.permits().count();
        this.limit = request.permits().limit();
    }

    @Override
    public String nodeName() {
        return PermitNodes.nodeName(count);
    }

    @Override
    public String data() {
        return PermitNodes.data(count, limit, request.owner());
    }

    @Override
    public String waitingFor(String key) {
        return "permits of '" + key + "'";
    }

    /** The earliest node seen last time (its stored count, likely unchanged), and our own node once we waited. */
    @Override
    public void prefetch(String parent, NodeRef node, String key) {
        guessPath = earliestSeen == null || earliestSeen.equals(node.name()) ? null : parent + "/" + earliestSeen;
        guessRead = guessPath == null ? null : reads.dataAsync(guessPath, key);
        ownRead = waited ? reads.dataAsync(node.path(), key) : null;
    }

    @Override
    public Verdict admit(QueueView view) {
        String key = request.key();
        NodeRef node = view.node();
        CuratorEvent guessed = guessRead == null ? null
                : reads.dataResult(guessRead, view.roundDeadlineNanos(), guessPath, key);
        own = ownRead == null ? null : reads.dataResult(ownRead, view.roundDeadlineNanos(), node.path(), key);
        guessRead = null;
        if (ownRead != null && own == null) {
            ownRead = null;
            throw Failures.sessionEndedWhileWaiting(key, node.path()); // our node is gone: it must not win
        }
        ownRead = null;
        int at = view.at();
        for (int i = at - 1; i >= 0; i--) {
            if (!PermitNodes.isPermit(view.sorted().get(i))) {
                // A lock hold or waiter ahead: permits are never granted beside it; wait for the last one.
                return waiting(Set.of(view.path(i)));
            }
        }
        int stored = storedCount(view, guessed);
        if (stored < 0) {
            earliestSeen = null; // released since the listing: look again at once
            return Verdict.LOOK_AGAIN;
        }
        earliestSeen = view.sorted().get(0);
        if (arrival && stored != limit) {
            throw new PermitCountMismatchException(key, Failures.BACKEND, stored, limit);
        }
        if (PermitNodes.countsBefore(view.sorted(), at) + count <= stored) {
            arrival = false;
            return Verdict.ADMITTED;
        }
        if (PermitNodes.admitted(view.sorted(), stored) >= at) {
            // The first waiter: every node ahead holds, and any of them leaving may admit us.
            Set<String> ahead = new LinkedHashSet<>();
            for (int i = 0; i < at; i++) {
                ahead.add(view.path(i));
            }
            return waiting(ahead);
        }
        // A waiter ahead of us must be admitted first; it passes the wake-up on.
        return waiting(Set.of(view.path(at - 1)));
    }

    private Verdict waiting(Set<String> paths) {
        arrival = false;
        waited = true;
        return Verdict.waitForChange(paths);
    }

    /**
     * The stored count: the limit in the earliest permit node's data (ours if we are first),
     * falling back to ours; -1 if the earliest node is gone since the listing.
     */
    private int storedCount(QueueView view, CuratorEvent guessed) {
        int fallback = own == null ? limit : positiveOr(PermitNodes.limitOf(own.getData()), limit);
        if (view.at() == 0) {
            return fallback;
        }
        String earliest = view.sorted().get(0);
        CuratorEvent read = earliest.equals(earliestSeen) ? guessed : reads.data(view.path(0), request.key());
        return read == null ? -1 : positiveOr(PermitNodes.limitOf(read.getData()), fallback);
    }

    /**
     * Once admitted after a wait, with nodes behind ours: touches our node's data (same bytes,
     * only if unchanged since read) so that a waiter watching it, which could be admitted only
     * after us, looks again. A version conflict means something else (a new stored count)
     * changed it and so already woke that waiter. A failure is logged: that waiter then looks
     * again when a node ahead of it goes. (A node granted on its first look needs not: a node
     * behind it lists after it and sees it holding.)
     */
    @Override
    public void admitted(QueueView view) {
        if (!waited || view.at() + 1 >= view.sorted().size()) {
            return;
        }
        NodeRef node = view.node();
        try {
            reads.setDataResult(reads.setDataAsync(node.path(), own.getData(), own.getStat().getVersion(),
                    request.key()), calls.deadline(), node.path(), request.key());
        } catch (RuntimeException e) {
            log.debug("Could not touch permit node {} to wake the waiter behind it", node.path(), e);
        }
    }

    private static int positiveOr(int value, int fallback) {
        return value > 0 ? value : fallback;
    }
}
