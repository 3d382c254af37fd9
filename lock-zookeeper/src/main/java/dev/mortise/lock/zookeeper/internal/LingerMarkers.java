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

    /** The name prefix of a marker; a marker never looks like a lock node to {@link LockPaths}. */
    public static final String PREFIX = "linger-czxid";

    private final ZkOps ops;

    public LingerMarkers(ZkOps ops) {
        this.ops = ops;
    }

    /** The marker of the hold on {@code node}, beside it in the key's parent. */
    public static String path(NodeRef node) {
        String nodePath = node.path();
        return nodePath.substring(0, nodePath.lastIndexOf('/') + 1) + PREFIX + node.czxid();
    }

    /** The markers among a parent's children. */
    public static List<String> among(List<String> children) {
        List<String> markers = null;
        for (String child : children) {
            if (child.startsWith(PREFIX)) {
                if (markers == null) {
                    markers = new ArrayList<>(1);
                }
                markers.add(child);
            }
        }
        return markers == null ? List.of() : markers;
    }

    /**
     * A lower bound of the leader's clock now, from our node's creation time and the
     * moment ({@link System#nanoTime}) its create was answered or later.
     */
    public static long serverNowAtLeast(NodeRef node, long answeredAtNanos) {
        long elapsedMillis = (System.nanoTime() - answeredAtNanos) / 1_000_000;
        return node.ctime() + elapsedMillis - elapsedMillis / 100;
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
        String marker = path(node);
        byte[] data = (lingerMillis(linger) + "\n" + owner).getBytes(StandardCharsets.UTF_8);
        byte[] ownerBytes = owner.getBytes(StandardCharsets.UTF_8);
        CuratorFramework client = ops.client();
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
     * by {@code serverNow} (a lower bound of the leader's clock: {@link #serverNowAtLeast});
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
        long deadline = ops.deadline();
        for (String marker : markers) {
            CompletableFuture<CuratorEvent> read = new CompletableFuture<>();
            send(key, "read the lingering hold's marker ", parent + "/" + marker, () -> ops.client().getData()
                    .inBackground((c, e) -> read.complete(e)).forPath(parent + "/" + marker));
            reads.add(read);
        }
        long remaining = 0;
        for (int i = 0; i < markers.size(); i++) {
            String path = parent + "/" + markers.get(i);
            CuratorEvent event = ops.awaitUntil(reads.get(i), deadline, "read the lingering hold's marker ", path, key);
            if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                continue;
            }
            check(event, key, "read the lingering hold's marker ", path);
            Stat stat = event.getStat();
            long linger = parseLinger(event.getData());
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

    /** Milliseconds, rounded up, plus one for the millisecond the marker's mtime was truncated to. */
    private static long lingerMillis(Duration linger) {
        long millis = linger.toMillis();
        return (linger.minusMillis(millis).isZero() ? millis : millis + 1) + 1;
    }

    static long parseLinger(byte[] data) {
        if (data == null) {
            return -1;
        }
        String text = new String(data, StandardCharsets.UTF_8);
        int end = text.indexOf('\n');
        try {
            return Long.parseLong(end < 0 ? text : text.substring(0, end));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The owner a marker's data names (after its linger), or null if it names none. */
    static String parseOwner(byte[] data) {
        if (data == null) {
            return null;
        }
        String text = new String(data, StandardCharsets.UTF_8);
        int end = text.indexOf('\n');
        return end < 0 ? null : text.substring(end + 1);
    }

    /** The czxid (the lingering hold's fencing token) a marker's name carries, or -1 if it carries none. */
    static long czxidOf(String marker) {
        try {
            return Long.parseLong(marker.substring(PREFIX.length()));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return -1;
        }
    }

    /** Deletes an expired marker and waits, so the key's next owner leaves nothing behind. */
    private void deleteExpired(String path, int version, String key) {
        CompletableFuture<CuratorEvent> deleted = new CompletableFuture<>();
        send(key, "delete the expired marker ", path, () -> ops.client().delete().withVersion(version)
                .inBackground((c, e) -> deleted.complete(e)).forPath(path));
        CuratorEvent event = ops.awaitUntil(deleted, ops.deadline(), "delete the expired marker ", path, key);
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
        send(key, "leave the lingering hold's marker ", marker, () -> ops.client().transaction()
                .inBackground((c, e) -> result.complete(e)).forOperations(operations.build()));
        return ops.awaitUntil(result, ops.deadline(), "leave the lingering hold's marker ", marker, key);
    }

    private interface Call {
        void send() throws Exception;
    }

    private void send(String key, String what, String path, Call call) {
        ops.awaitConnected(what, path, key); // nothing queued in Curator while disconnected (see ZkOps)
        try {
            call.send();
        } catch (Exception e) {
            throw new dev.mortise.lock.LockBackendException("Could not send a request to " + what + path
                    + Failures.forKey(key) + " (backend 'zookeeper', ensemble " + ops.ensemble() + "): " + e
                    + ". Check that the CuratorFramework is started and not closed.", key, Failures.BACKEND, e);
        }
    }

    private void check(CuratorEvent event, String key, String what, String path) {
        int code = event.getResultCode();
        if (code != KeeperException.Code.OK.intValue()) {
            throw Failures.keeper(what + path, key, KeeperException.create(KeeperException.Code.get(code), path),
                    ops.ensemble());
        }
    }
}
