package dev.mortise.lock.redis.internal.redisson;

import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.BaseRedisNodes;
import org.redisson.api.redisnode.RedisCluster;
import org.redisson.api.redisnode.RedisMasterSlave;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Opens a lazily initializing Redisson client's connections on a thread of its own, never on a
 * caller's. Thread-safe.
 *
 * <p>Why: Redisson connects on the first thread that needs a connection and makes every other
 * thread wait for that one; the connecting thread waits interruptibly, and when it is interrupted
 * its {@code InterruptedException} ends the connect for all of them. One caller interrupted during
 * the first connect would fail every other first caller, none of which was interrupted (and they
 * would read that as their own interrupt). Here the connect runs on a new daemon thread that
 * nobody interrupts, one attempt at a time; each caller waits for that attempt with a wait of its
 * own, which only its own interrupt ends, and which leaves the attempt going for the others. A
 * failed attempt is forgotten: the next caller starts another, as Redisson itself would.
 */
final class RedissonConnector {

    private static final CompletableFuture<Void> OPEN = CompletableFuture.completedFuture(null);

    private final RedissonClient client;
    private volatile boolean open;
    private CompletableFuture<Void> attempt; // guarded by this

    RedissonConnector(RedissonClient client) {
        this.client = client;
    }

    /** The current connect attempt (started if none is under way), or a completed future once connected. */
    CompletableFuture<Void> connect() {
        if (open) {
            return OPEN;
        }
        synchronized (this) {
            if (attempt == null || attempt.isCompletedExceptionally()) {
                CompletableFuture<Void> next = new CompletableFuture<>();
                attempt = next;
                Thread connecting = new Thread(() -> run(next), "mortise-redisson-connect");
                connecting.setDaemon(true);
                connecting.start();
            }
            return attempt;
        }
    }

    /**
     * Waits, on the calling thread, until the client has connected, so that the command the caller
     * is about to start does not connect on this thread.
     *
     * @return null once connected; otherwise the failure to answer the caller's command with: the
     *         connect's own failure, or an {@link InterruptedException} if this thread was
     *         interrupted while it waited (its interrupt flag is set again; the connect goes on)
     */
    Throwable awaitOpen() {
        if (open) {
            return null;
        }
        try {
            connect().get(); // Redisson bounds the connect by its own connect timeout and retries
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        } catch (ExecutionException e) {
            return e.getCause() == null ? e : e.getCause();
        }
    }

    private void run(CompletableFuture<Void> next) {
        try {
            openEntries();
            open = true;
            next.complete(null);
        } catch (Throwable e) {
            next.completeExceptionally(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
        }
    }

    /**
     * Asks for the client's master entries, which makes Redisson connect (its lazy initialization)
     * and sends no command; a client that connected when it was created answers at once.
     */
    private void openEntries() {
        Config config = client.getConfig();
        BaseRedisNodes nodes;
        try {
            nodes = config.isClusterConfig() ? client.getRedisNodes(RedisNodes.CLUSTER)
                    : config.isSentinelConfig() ? client.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE)
                    : client.getRedisNodes(RedisNodes.MASTER_SLAVE);
        } catch (IllegalArgumentException e) {
            return; // a mode without a node view: Redisson connects with the first command, as before
        }
        if (nodes instanceof RedisCluster cluster) {
            cluster.getMasters();
        } else {
            ((RedisMasterSlave) nodes).getMaster();
        }
    }
}
