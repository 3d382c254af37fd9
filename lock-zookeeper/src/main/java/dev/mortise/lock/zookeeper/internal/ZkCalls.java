package dev.mortise.lock.zookeeper.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Deadlines;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How every ZooKeeper call of the backend is sent and waited for, bounded by the operation
 * timeout whatever the client's own retry policy and connection timeout say: every call runs
 * in Curator's background mode and we wait for its callback at most that long. Waiting here
 * is deliberately not interruptible (a round trip is short and bounded): an interrupt is kept
 * in the thread's flag for the caller to act on between calls, so a node we created is never
 * abandoned half-way.
 *
 * <p><b>No request is queued while the connection is down.</b> Curator keeps a background
 * request sent while disconnected until its connection timeout, then gives it up with two
 * ERROR log lines ("Background operation retry gave up"), and retries a guaranteed delete
 * the same way over and over: with an unreachable ensemble, every lock call, cleanup and
 * renewal would add its own pair. So a call waits for the connection (at most the
 * operation timeout) before it sends anything, and fails with the usual timeout if it does
 * not come ({@link NodeDeletes} keeps deletes that cannot be sent until it is back).
 *
 * <p>Messages are put together only on failure ("what" + "path"): the success path of a
 * lock cycle builds no strings. Thread-safe.
 */
final class ZkCalls {

    private final CuratorFramework client;
    private final Duration timeout;
    private final String ensemble;

    /** @param ensemble how to name the servers in messages (the connect string) */
    ZkCalls(CuratorFramework client, Duration timeout, String ensemble) {
        this.client = client;
        this.timeout = timeout;
        this.ensemble = ensemble;
    }

    CuratorFramework client() {
        return client;
    }

    Duration timeout() {
        return timeout;
    }

    /** How messages name the servers (the connect string). */
    String ensemble() {
        return ensemble;
    }

    /** The deadline of a call sent now. */
    long deadline() {
        return System.nanoTime() + timeout.toNanos();
    }

    boolean isConnected() {
        return client.getZookeeperClient().isConnected();
    }

    /** A request that Curator sends in the background. */
    interface Call {
        Object send() throws Exception;
    }

    /**
     * Sends {@code call} once the client is connected (at most the operation timeout away).
     *
     * @throws LockBackendException if the connection does not come back in time, or Curator
     *                              refuses to send (the client is not started or closed)
     */
    void submit(String key, String what, String path, Call call) {
        awaitConnected(what, path, key);
        try {
            call.send();
        } catch (Exception e) {
            throw notSent(key, what, path, e);
        }
    }

    /** The failure of a request that could not be sent at all. */
    LockBackendException notSent(String key, String what, String path, Exception e) {
        return new LockBackendException("Could not send a request to " + what + path + Failures.forKey(key)
                + " (backend 'zookeeper', ensemble " + ensemble + "): " + e
                + ". Check that the CuratorFramework is started and not closed.", key, Failures.BACKEND, e);
    }

    /** Whether a call sent now would first wait for the connection ({@link #awaitConnected}). */
    boolean waitsForConnection() {
        return !isConnected() && client.getState() == CuratorFrameworkState.STARTED;
    }

    /**
     * Waits until the client is connected, at most the operation timeout, without giving in
     * to an interrupt (the flag is set again after). A client not started (or closed) is not
     * waited for: sending then fails with the reason.
     *
     * @throws LockBackendException (a timeout) if the connection does not come back in time
     */
    void awaitConnected(String what, String path, String key) {
        if (!waitsForConnection()) {
            return;
        }
        long deadline = deadline();
        boolean interrupted = false;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw Failures.timeout(what + path, key, timeout, ensemble);
                }
                try {
                    if (client.blockUntilConnected((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)),
                            TimeUnit.MILLISECONDS) && isConnected()) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits uninterruptibly until the deadline; restores the interrupt flag if one came.
     * Completing the future exceptionally on a timeout marks the call abandoned, so a late
     * answer can clean up after itself; if the answer won that race, it is taken.
     *
     * @throws LockBackendException the usual timeout
     */
    <T> T awaitUntil(CompletableFuture<T> result, long deadlineNanos, String what, String path, String key) {
        while (true) {
            try {
                return Deadlines.awaitUninterruptibly(result, deadlineNanos);
            } catch (TimeoutException e) {
                if (result.completeExceptionally(e)) {
                    throw Failures.timeout(what + path, key, timeout, ensemble);
                }
            } catch (ExecutionException e) {
                throw Failures.timeout(what + path, key, timeout, ensemble);
            }
        }
    }

    /**
     * {@link #awaitUntil}, then: {@code null} if the node is gone (NONODE), the answer if OK,
     * else a failure naming the key.
     */
    CuratorEvent presentOrNull(CompletableFuture<CuratorEvent> pending, long deadlineNanos, String what, String path,
                               String key) {
        CuratorEvent event = awaitUntil(pending, deadlineNanos, what, path, key);
        if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return null;
        }
        check(event, key, what, path);
        return event;
    }

    /** Fails naming the key unless {@code event} answered OK; the error names the event's path. */
    void check(CuratorEvent event, String key, String what, String path) {
        int code = event.getResultCode();
        if (code != KeeperException.Code.OK.intValue()) {
            throw Failures.keeper(what + path, key, KeeperException.create(KeeperException.Code.get(code),
                    event.getPath()), ensemble);
        }
    }
}
