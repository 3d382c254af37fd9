package dev.mortise.lock.zookeeper.internal;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Puts our node in a key's queue: creates it and lists the queue in one round trip. The
 * listing is sent right behind the create on the same session, and ZooKeeper answers a
 * session's requests in order, so it normally shows our node (if it does not — Curator
 * re-sent the create after a lost connection — the {@link QueueLoop} lists again).
 *
 * <p>A key's parent is a container the server deletes once it is empty, so a key that
 * was idle for a while has none: the create then fails with NONODE, and the parent's
 * create is sent right before ours in the next round trip (after a second NONODE, the
 * root's ancestors too: the root is a container as well). Curator's own
 * {@code creatingParentContainersIfNeeded} would check every ancestor with its own
 * round trip, on Curator's single background thread. Thread-safe.
 */
final class Enqueue {

    private static final Logger log = LoggerFactory.getLogger(Enqueue.class);

    /** Creates before giving up on a parent that keeps vanishing. */
    static final int MAX_CREATE_ATTEMPTS = 5;

    private final ZkOps ops;
    private final LockPaths paths;
    /** Whether the root existed at the last create: a missing parent then needs only its own create. */
    private volatile boolean rootExists;

    Enqueue(ZkOps ops, LockPaths paths) {
        this.ops = ops;
        this.paths = paths;
    }

    /** Our new node, and a listing of the queue taken right after it was created (or null). */
    record Queued(NodeRef node, List<String> listing) {
    }

    /** Creates our node named {@code nodeName} with {@code data} under {@code parent}, and lists the queue. */
    Queued enqueue(String parent, String key, String nodeName, String data) {
        for (int attempt = 0; ; attempt++) {
            long deadline = ops.calls().deadline();
            List<String> containers = attempt == 0 ? List.of()
                    : attempt == 1 && rootExists ? List.of(parent) : paths.chain(parent);
            List<CompletableFuture<CuratorEvent>> parents = ops.creates().createContainersAsync(containers, key);
            Queued queued = createAndList(parent, key, nodeName, data, deadline);
            if (queued != null) {
                // The containers were only there to make the create succeed; whatever they answered
                // (an existing ancestor we may not create under answers NOAUTH) no longer matters.
                rootExists = true;
                return queued;
            }
            // The parent is missing after all: a container that failed for a reason other than
            // "exists" or "its own parent is missing" (no permission) is why, and is reported.
            ops.creates().containerResults(parents, deadline, containers, key);
            if (attempt == 1) {
                rootExists = false;
            } else if (attempt >= MAX_CREATE_ATTEMPTS) {
                // Only a reaper deleting the parent between every create and the next could do this.
                throw Failures.keeper("create a lock node under " + parent, key,
                        KeeperException.create(KeeperException.Code.NONODE, parent), ops.calls().ensemble());
            }
        }
    }

    /** The create and the listing behind it; {@code null} if the parent is missing. */
    private Queued createAndList(String parent, String key, String nodeName, String data, long deadline) {
        CompletableFuture<CuratorEvent> created = ops.creates().createAsync(parent, nodeName, data, key);
        List<String> listing = null;
        NodeRef node;
        try {
            try {
                // The listing's answer comes last: waiting for it first wakes this thread once, not once per answer.
                listing = ops.reads().childrenResult(ops.reads().childrenAsync(parent, key), deadline, parent, key);
            } catch (RuntimeException e) {
                // The create went out: its answer decides, and the queue is listed again.
                log.debug("The listing sent with the create under {} failed; listing again", parent, e);
            }
            // The create's answer is read before anything else can fail this call: a node it made
            // must be ours to delete, never left behind by an error about something else.
            node = ops.creates().createResult(created, deadline, parent, key);
        } catch (RuntimeException e) {
            ops.creates().abandonCreate(created);
            throw e;
        }
        return node == null ? null : new Queued(node, listing);
    }
}
