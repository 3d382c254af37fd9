package dev.mortise.lock.redis.internal.redlock;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.LockCommands;
import dev.mortise.lock.redis.internal.RedisKeys;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The independent masters of one Redlock backend and how a round reaches them: the same call to
 * every node at once, each bounded by the node timeout ({@link NodeReplies}), a strict majority
 * needed. Also numbers the backend's attempts (a stored owner is the request's owner plus its
 * attempt) and warms the lazily connecting clients up once. Thread-safe.
 */
public final class RedlockNodes {

    /** The backend's name in messages. */
    static final String NAME = "redlock";

    private static final Duration WARM_UP = Duration.ofSeconds(2);

    private final List<LockCommands> nodes;
    private final int quorum;
    private final Duration nodeTimeout;
    private final String prefix;
    private final AtomicLong attempts = new AtomicLong();
    private volatile boolean warmedUp;

    public RedlockNodes(List<LockCommands> nodes, Duration nodeTimeout, String prefix) {
        this.nodes = List.copyOf(nodes);
        this.quorum = nodes.size() / 2 + 1;
        this.nodeTimeout = nodeTimeout;
        this.prefix = prefix;
    }

    /** How many nodes must agree: a strict majority. */
    public int quorum() {
        return quorum;
    }

    public int size() {
        return nodes.size();
    }

    List<LockCommands> all() {
        return nodes;
    }

    Duration nodeTimeout() {
        return nodeTimeout;
    }

    /** Whether the nodes number grants by their clocks ({@code next_token}), as the builder set them all. */
    public boolean serverClock() {
        return nodes.get(0).deployment().serverClock();
    }

    RedisKeys keys(String key) {
        return RedisKeys.of(prefix, key);
    }

    /** The next attempt's number, unique within this backend. */
    long nextAttempt() {
        return attempts.incrementAndGet();
    }

    /** One round: {@code call} on every node at once, each answer awaited at most the node timeout. */
    <T> NodeReplies<T> gather(Function<LockCommands, CompletableFuture<T>> call) {
        return NodeReplies.gather(nodes, call, nodeTimeout);
    }

    /**
     * Lets the lazily connecting clients open their connections (one ping per node, once)
     * before the first attempt starts its lease clock; connection set-up on first use can
     * take longer than a node timeout and would otherwise spend the first lease.
     */
    void warmUp() {
        if (!warmedUp) {
            NodeReplies.gather(nodes, n -> n.inspection().pingAsync(),
                    WARM_UP.compareTo(nodeTimeout) > 0 ? WARM_UP : nodeTimeout);
            warmedUp = true;
        }
    }

    /** One ping round; fails unless a majority answered. */
    public void ping() {
        NodeReplies<Long> pinged = gather(n -> n.inspection().pingAsync());
        if (pinged.answeredCount() < quorum) {
            throw new LockBackendException("Backend 'redlock': only " + pinged.answeredCount() + " of " + nodes.size()
                    + " Redis nodes answered a ping within " + nodeTimeout.toMillis() + " ms; a majority of " + quorum
                    + " is needed to grant locks (first failure: " + pinged.firstFailure() + ").", null, NAME,
                    pinged.firstFailure());
        }
    }

    @Override
    public String toString() {
        return nodes.size() + " nodes, quorum " + quorum;
    }
}
