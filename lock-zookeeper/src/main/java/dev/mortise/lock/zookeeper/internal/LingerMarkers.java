package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Holds left to linger ({@code LockLease.closeLingering}, "hold at least") that outlive
 * their session. A hold is an ephemeral node, which vanishes the moment its client closes;
 * so a lingering hold also leaves a persistent <em>marker</em> beside the lock nodes,
 * {@code <parent>/linger-czxid<token>}, whose data is the linger in milliseconds. Every
 * acquirer that finds itself first in the queue treats a marker as a holder until the
 * marker has expired, and deletes it then.
 *
 * <p><b>Time.</b> ZooKeeper offers clients no clock but the one it stamps on nodes: a
 * marker expires at its {@code mtime} (the leader's wall clock when it was written) plus its
 * linger, and an acquirer measures that against a lower bound of the leader's clock now —
 * the {@code ctime} of its own lock node plus the time this process has seen pass since the
 * create was answered, less a 1% drift allowance. No client's wall clock is involved. What
 * can still shift the end: the leader's clock jumping, or a new leader whose clock differs
 * from the old one's (by its NTP offset, normally milliseconds).
 *
 * <p><b>Waking.</b> The marker is written in one transaction with a data change on the
 * lingering hold's own node, so the waiter watching that node is woken and lists the queue
 * again (a waiter that read the node after the change sees its data version above 0): it
 * never takes the hold's deletion for a free lock without having seen the marker. The first
 * waiter then sleeps until the marker's end; the others keep watching their predecessors
 * (no herd).
 *
 * <p><b>Nothing left behind.</b> While the holder's client lives, it deletes its marker
 * when the linger ends (with the hold's node); after a shutdown, the next acquirer of the
 * key deletes it once expired. A key never acquired again keeps its expired marker (and so
 * its parent node) until then. Thread-safe.
 */
public final class LingerMarkers {

    private static final Logger log = LoggerFactory.getLogger(LingerMarkers.class);

    private final ZkCalls calls;

    public LingerMarkers(ZkOps ops) {
        this.calls = ops.calls();
    }

    /**
     * Writes (or rewrites) the marker of the hold on {@code node} for {@code linger} from the
     * server's clock now, and touches the node's data so its waiter looks again. One
     * transaction: the marker exists only if the node still did.
     *
     * @return false if the node is gone (the hold ended)
     * @throws dev.mortise.lock.LockBackendException if the server did not answer in time or refused
     */
    public boolean leave(NodeRef node, String owner, Duration linger, String key) {
        String marker = MarkerFormat.path(node);
        byte[] data = MarkerFormat.data(linger, owner);
        byte[] ownerBytes = owner.getBytes(StandardCharsets.UTF_8);
        CuratorFramework client = calls.client();
        CuratorEvent event = transaction(key, marker, () -> List.of(
                client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(marker, data),
                client.transactionOp().setData().forPath(node.path(), ownerBytes)));
        if (event.getResultCode() == KeeperException.Code.NODEEXISTS.intValue()) {
            // Lingered before (a retried close): the new linger counts from now, as the marker's mtime says.
            event = transaction(key, marker, () -> List.of(
                    client.transactionOp().setData().forPath(marker, data),
                    client.transactionOp().setData().forPath(node.path(), ownerBytes)));
        }
        if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return false;
        }
        check(event, key, "leave the lingering hold's marker ", marker);
        return true;
    }

    /**
     * How long to wait before the markers among a key's children have all expired, judged
     * by {@code serverNow} (a lower bound of the leader's clock: {@link MarkerFormat#serverNowAtLeast});
     * expired markers are deleted on the way (only if unchanged since read).
     *
     * @return 0 if none is in force any more; else the milliseconds to wait, by this
     *         process's clock, until the last of them has surely expired
     */
    public long remainingMillis(String parent, List<String> markers, long serverNow, String key) {
        if (markers.isEmpty()) {
            return 0;
        }
        List<CompletableFuture<CuratorEvent>> reads = new ArrayList<>(markers.size());
        long deadline = calls.deadline();
        for (String marker : markers) {
            CompletableFuture<CuratorEvent> read = new CompletableFuture<>();
            calls.submit(key, "read the lingering hold's marker ", parent + "/" + marker, () -> calls.client().getData()
                    .inBackground((c, e) -> read.complete(e)).forPath(parent + "/" + marker));
            reads.add(read);
        }
        long remaining = 0;
        for (int i = 0; i < markers.size(); i++) {
            String path = parent + "/" + markers.get(i);
            CuratorEvent event = calls.awaitUntil(reads.get(i), deadline, "read the lingering hold's marker ", path, key);
            if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                continue;
            }
            check(event, key, "read the lingering hold's marker ", path);
            Stat stat = event.getStat();
            long linger = MarkerFormat.parseLinger(event.getData());
            if (linger < 0) {
                log.warn("Deleting {}: it is named like a lingering hold's marker but does not hold a linger in "
                        + "milliseconds (backend 'zookeeper')", path);
            }
            long left = stat.getMtime() + Math.max(0, linger) - serverNow;
            if (left <= 0) {
                deleteExpired(path, stat.getVersion(), key);
            } else {
                // serverNow grows 1% slower than this clock (the drift allowance): wait that much longer.
                remaining = Math.max(remaining, left + left / 99 + 1);
            }
        }
        return remaining;
    }

    /** Deletes an expired marker and waits, so the key's next owner leaves nothing behind. */
    private void deleteExpired(String path, int version, String key) {
        CompletableFuture<CuratorEvent> deleted = new CompletableFuture<>();
        calls.submit(key, "delete the expired marker ", path, () -> calls.client().delete().withVersion(version)
                .inBackground((c, e) -> deleted.complete(e)).forPath(path));
        CuratorEvent event = calls.awaitUntil(deleted, calls.deadline(), "delete the expired marker ", path, key);
        int code = event.getResultCode();
        // Gone already (another acquirer), or rewritten since read (then it is in force again and not ours to delete).
        if (code != KeeperException.Code.NONODE.intValue() && code != KeeperException.Code.BADVERSION.intValue()) {
            check(event, key, "delete the expired marker ", path);
        }
    }

    private interface Ops {
        List<CuratorOp> build() throws Exception;
    }

    private CuratorEvent transaction(String key, String marker, Ops operations) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        calls.submit(key, "leave the lingering hold's marker ", marker, () -> calls.client().transaction()
                .inBackground((c, e) -> result.complete(e)).forOperations(operations.build()));
        return calls.awaitUntil(result, calls.deadline(), "leave the lingering hold's marker ", marker, key);
    }

    private void check(CuratorEvent event, String key, String what, String path) {
        int code = event.getResultCode();
        if (code != KeeperException.Code.OK.intValue()) {
            throw Failures.keeper(what + path, key, KeeperException.create(KeeperException.Code.get(code), path),
                    calls.ensemble());
        }
    }
}
