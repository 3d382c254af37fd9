package dev.mortise.lock.redis.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.spi.Deadlines;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs our Lua scripts on one Redis deployment through its {@link RedisTransport} (Redisson or
 * Lettuce): {@code EVALSHA} first, and
 * {@code EVAL} (which also caches the script) only when the server answers {@code NOSCRIPT}
 * after a restart or {@code SCRIPT FLUSH}. Every wait is bounded by the operation timeout
 * and every failure becomes a {@link LockBackendException} naming the key, the backend and
 * the fix. Thread-safe.
 *
 * <p>Two timeouts: the connect timeout bounds opening a connection on first use
 * ({@link #ensureReady}); the operation timeout bounds each command from when it can be written.
 */
public final class ScriptRunner {

    private final RedisTransport transport;
    private final Duration timeout;
    private final Duration connectTimeout;
    private final String backend;
    private final String where;
    private volatile boolean ready;

    /**
     * @param timeout        the operation timeout: how long a command sent on an open connection may
     *                       take to answer
     * @param connectTimeout how long {@link #ensureReady} waits for the connection to open (TCP
     *                       connect, TLS and Redis handshakes) before the first command is sent
     * @param backend        the backend's name, for messages
     * @param where          what the client points at ("Redis at redis://127.0.0.1:6379"), for messages
     */
    public ScriptRunner(RedisTransport transport, Duration timeout, Duration connectTimeout, String backend,
                        String where) {
        this.transport = transport;
        this.timeout = timeout;
        this.connectTimeout = connectTimeout;
        this.backend = backend;
        this.where = where;
    }

    public RedisTransport transport() {
        return transport;
    }

    public Duration timeout() {
        return timeout;
    }

    /** How long {@link #ensureReady} waits for a connection to open. */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    public String where() {
        return where;
    }

    /**
     * Makes sure the client has connected before a caller starts its lease clock: a lazily
     * connecting client (either transport) opens its connections on first use, which can take longer
     * than a short lease and would count against it. Until one succeeds: waits for the connection
     * at most the connect timeout, then sends one ping and waits for its answer at most the
     * operation timeout, so a slow connection set-up (a first TLS handshake on a cold, busy JVM
     * takes seconds) does not eat the command's time.
     *
     * @throws LockBackendException naming the key, the backend and the timeout to raise: the
     *                              connect timeout if the connection did not open (in time), the
     *                              operation timeout if the open connection did not answer
     */
    public void ensureReady(String key) {
        ensureReady(key, connectTimeout);
    }

    /**
     * As {@link #ensureReady(String)}, waiting for the connection at most {@code connectWait}: zero after
     * a caller slept on {@link #pendingConnect} for the connect timeout already.
     */
    public void ensureReady(String key, Duration connectWait) {
        if (ready) {
            return;
        }
        CompletableFuture<?> connected;
        try {
            connected = transport.connect();
        } catch (RuntimeException e) {
            throw connectFailure(key, e);
        }
        awaitConnection(connected, connectWait, key);
        ScriptCall ping = Inspection.pingCall();
        String answering = key == null ? "get a first answer" : "get a first answer for";
        try {
            // Sent once connected: the operation timeout counts from when it can be written.
            await(send(ping, false), () -> send(ping, true), timeout, key, answering);
        } catch (LockInterruptedException e) {
            throw e;
        } catch (LockBackendException e) {
            throw connectionFailed(e) ? connectFailure(key, e.getCause()) : e;
        } catch (RuntimeException e) {
            throw connectionFailed(e) ? connectFailure(key, e) : failure(key, answering, e);
        }
        ready = true;
    }

    /**
     * The client's first connect while it is under way, for a caller that sleeps on it instead of
     * waiting in {@link #ensureReady}; null once the client is ready.
     *
     * @throws LockBackendException if the connect could not even start
     */
    public CompletableFuture<?> pendingConnect(String key) {
        if (ready) {
            return null;
        }
        try {
            return transport.connect();
        } catch (RuntimeException e) {
            throw connectFailure(key, e);
        }
    }

    /**
     * Waits for the connection at most the connect timeout. A connection still opening is not
     * abandoned: other callers may be waiting for it too, and if it opens later, the next call uses
     * it. So this caller's interrupt ends this caller's wait only (nothing was sent, nothing is held),
     * never the connect.
     */
    private void awaitConnection(CompletableFuture<?> connected, Duration connectWait, String key) {
        try {
            connected.get(connectWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(prefix(key, connecting(key)) + "interrupted while the connection "
                    + "opened; nothing was sent, so nothing is held. The interrupt flag is set again.", key, backend, e);
        } catch (TimeoutException e) {
            throw new LockBackendException(prefix(key, connecting(key)) + "the connection did not open within the "
                    + "connect timeout (" + connectTimeout.toMillis() + " ms): the TCP connect, TLS handshake or Redis "
                    + "handshake (HELLO, AUTH) had not finished; nothing was sent. Check that the server is up and "
                    + "reachable, or raise connectTimeout (a first TLS connect on a small or busy machine can take "
                    + "seconds: see docs/redis.md).", key, backend, e);
        } catch (ExecutionException | CompletionException e) {
            throw connectFailure(key, e.getCause() == null ? e : e.getCause());
        }
    }

    /** A connection that could not be opened, by the client's own account: the cause, the fix. */
    private LockBackendException connectFailure(String key, Throwable cause) {
        return new LockBackendException(prefix(key, connecting(key)) + "opening the connection failed (connect timeout "
                + connectTimeout.toMillis() + " ms): " + cause + "; nothing was sent. " + advice(String.valueOf(cause))
                + ", or raise connectTimeout if the connection set-up timed out.", key, backend, cause);
    }

    private static String connecting(String key) {
        return key == null ? "connect" : "connect for";
    }

    /** Whether {@code failure} says the client could not open a connection (either client's RedisConnectionException). */
    private static boolean connectionFailed(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getClass().getSimpleName().equals("RedisConnectionException")) {
                return true;
            }
        }
        return false;
    }

    /** Starts one script call; a {@code NOSCRIPT} answer is retried once with {@code EVAL}. */
    public <T> CompletableFuture<T> callAsync(ScriptCall call) {
        CompletableFuture<T> first = send(call, false);
        return first.exceptionallyCompose(e -> isNoScript(e) ? send(call, true) : CompletableFuture.failedFuture(e));
    }

    /**
     * Starts one script call as is: {@code EVALSHA}, or {@code EVAL} with {@code eval}. Whoever
     * waits for it handles {@code NOSCRIPT} ({@link #await(CompletableFuture, java.util.function.Supplier, Duration,
     * String, String)}), which spares the common case a dependent future.
     */
    public <T> CompletableFuture<T> send(ScriptCall call, boolean eval) {
        return transport.send(call, eval);
    }

    /** Runs one script call and waits for it, at most the operation timeout. */
    public <T> T call(ScriptCall call, String key, String what) {
        return await(send(call, false), () -> send(call, true), timeout, key, what);
    }

    /** An answer, and whether it may come from a second send of its call (the first one's being lost). */
    public record Answer<T>(T value, boolean maybeResent) {
    }

    /**
     * Runs a call whose first send may be applied without its answer arriving (a release), and says
     * whether the answer may come from a second send. The first goes without the client's own
     * retries ({@link RedisTransport#sendOnce}); if it fails (a timeout, a broken connection: it may
     * have been applied all the same) the call is sent once more and that answer counts. A Lettuce
     * reconnect while it was out counts as a second send too ({@link RedisTransport#resends()}).
     * The caller reads an answer that says "not there" with that in mind: its own first send may have
     * taken it ({@link MaybeResent#had}).
     */
    public <T> Answer<T> callNoticingResends(ScriptCall call, String key, String what) {
        MaybeResent resends = MaybeResent.watch(transport);
        try {
            T value = await(transport.sendOnce(call, false), () -> transport.sendOnce(call, true), timeout, key, what);
            return new Answer<>(value, resends.resent());
        } catch (LockBackendException first) {
            try {
                return new Answer<>(call(call, key, what), true);
            } catch (LockBackendException second) {
                second.addSuppressed(first);
                throw second;
            }
        }
    }

    /**
     * Sends the calls as one pipelined batch (one round trip per node), followed, with
     * {@code replicas} above 0, by {@code WAIT replicas replicaTimeout} on the same connection;
     * waits at most the operation timeout plus {@code replicaTimeout}.
     */
    public BatchReply batch(List<ScriptCall> calls, int replicas, Duration replicaTimeout, String key, String what) {
        return await(sendBatch(calls, replicas, replicaTimeout, false),
                () -> sendBatch(calls, replicas, replicaTimeout, true), timeout.plus(replicaTimeout), key, what);
    }

    /** Starts a pipelined batch as is ({@code EVALSHA}, or {@code EVAL} with {@code eval}). */
    public CompletableFuture<BatchReply> sendBatch(List<ScriptCall> calls, int replicas, Duration replicaTimeout,
                                                   boolean eval) {
        return transport.sendBatch(calls, replicas, replicaTimeout, eval);
    }

    /**
     * Waits for {@code first}, and if the server answered {@code NOSCRIPT} (restart, {@code SCRIPT FLUSH}),
     * for {@code eval} (the same call sent with {@code EVAL}, which caches the script again); both within
     * {@code max} in all.
     */
    public <T> T await(CompletableFuture<T> first, java.util.function.Supplier<CompletableFuture<T>> eval, Duration max,
                       String key, String what) {
        long deadline = System.nanoTime() + max.toNanos();
        try {
            return await(first, max, key, what);
        } catch (LockBackendException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return await(eval.get(), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), key, what);
        }
    }

    static boolean isNoScript(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            // Both clients carry the server's error line ("NOSCRIPT No matching script...") in the message.
            if (t.getMessage() != null && t.getMessage().contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Waits for {@code future} at most {@code max}, without being interruptible: each wait
     * is bounded, and abandoning a write half-way would leave its outcome unknown. The
     * interrupt flag is restored.
     */
    public <T> T await(CompletableFuture<T> future, Duration max, String key, String what) {
        return awaitUntil(future, System.nanoTime() + max.toNanos(), max, key, what);
    }

    /**
     * As {@link #await(CompletableFuture, Duration, String, String)} without waiting, for a caller that
     * slept on {@code future} for {@code waited} already: its value, or the failure that wait would have
     * thrown.
     */
    public <T> T awaitDone(CompletableFuture<T> future, Duration waited, String key, String what) {
        return awaitUntil(future, System.nanoTime(), waited, key, what);
    }

    private <T> T awaitUntil(CompletableFuture<T> future, long deadline, Duration max, String key, String what) {
        try {
            return Deadlines.awaitUninterruptibly(future, deadline);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new LockBackendException(prefix(key, what) + "got no answer within the operation timeout ("
                    + max.toMillis() + " ms). Check that the server is up and reachable, or raise operationTimeout.",
                    key, backend, e);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            InterruptedException interrupt = interruptIn(cause);
            if (interrupt != null && Thread.currentThread().isInterrupted()) {
                // The transport gave up before sending because this thread was interrupted (the flag,
                // set again by it or by the wait above, says so): nothing is held; report the
                // interrupt as such. An InterruptedException while this thread was not interrupted was
                // another thread's: a failure like any other, never this caller's interrupt.
                throw new LockInterruptedException(prefix(key, what) + "interrupted before the command was "
                        + "sent; nothing is held. The interrupt flag is set again.", key, backend, interrupt);
            }
            throw failure(key, what, cause);
        }
    }

    private static InterruptedException interruptIn(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException interrupt) {
                return interrupt;
            }
        }
        return null;
    }

    /** A failure of {@code what} on {@code key}, with the cause and the fix. */
    public LockBackendException failure(String key, String what, Throwable cause) {
        if (cause instanceof LockBackendException known) {
            return known;
        }
        return new LockBackendException(prefix(key, what) + "failed: " + cause + ". " + advice(String.valueOf(cause))
                + "; nothing was granted that the server did not confirm.", key, backend, cause);
    }

    /** What to do about a failure, by what the server or client said. */
    private static String advice(String said) {
        if (said.contains("MOVED ") || said.contains("ASK ") || said.contains("CLUSTERDOWN")
                || said.contains("TRYAGAIN")) {
            return "The key's slot moved to another master or the cluster is resharding; the topology is refreshed "
                    + "and the next attempt goes to the slot's new master (retry, or wait for the resharding to end)";
        }
        if (said.contains("NOPERM") || said.contains("NOAUTH") || said.contains("WRONGPASS")) {
            return "The server refused the user: check the credentials, and that the user's ACL allows the "
                    + "commands, keys and channels under the key prefix that docs/redis.md lists under 'ACL' "
                    + "(e.g. ~mortise:* &mortise:* +@all)";
        }
        return "Check that the server is up and reachable and that the credentials (username/password) and TLS "
                + "settings are right";
    }

    private String prefix(String key, String what) {
        return "Backend '" + backend + "' (" + where + ") could not " + what
                + (key == null ? ": " : " lock '" + abbreviate(key) + "': ");
    }

    public static String abbreviate(String key) {
        return key.length() <= 200 ? key : key.substring(0, 200) + "…";
    }
}
