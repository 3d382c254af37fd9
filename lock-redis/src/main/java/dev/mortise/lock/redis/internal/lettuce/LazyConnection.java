package dev.mortise.lock.redis.internal.lettuce;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A connection opened on first use: a failed attempt is forgotten, so the next use tries
 * again; once open it is kept (Lettuce reconnects it by itself) until {@link #close()}.
 * Thread-safe.
 */
final class LazyConnection<C> {

    private final Supplier<CompletableFuture<C>> connect;
    private final Function<C, CompletableFuture<?>> closer;
    private volatile C ready;
    private CompletableFuture<C> pending; // guarded by this
    private boolean closed; // guarded by this

    LazyConnection(Supplier<CompletableFuture<C>> connect, Function<C, CompletableFuture<?>> closer) {
        this.connect = connect;
        this.closer = closer;
    }

    /** The open connection, or null while none is open. */
    C ready() {
        return ready;
    }

    synchronized CompletableFuture<C> get() {
        C now = ready;
        if (now != null) {
            return CompletableFuture.completedFuture(now);
        }
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("the Redis backend is closed"));
        }
        if (pending == null || pending.isCompletedExceptionally()) {
            CompletableFuture<C> attempt;
            try {
                attempt = connect.get();
            } catch (RuntimeException e) {
                attempt = CompletableFuture.failedFuture(e);
            }
            pending = attempt.thenApply(this::opened);
        }
        return pending;
    }

    private C opened(C connection) {
        boolean late;
        synchronized (this) {
            late = closed;
            if (!late) {
                ready = connection;
            }
        }
        if (late) {
            closer.apply(connection);
            throw new IllegalStateException("the Redis backend is closed");
        }
        return connection;
    }

    CompletableFuture<?> close() {
        C open;
        synchronized (this) {
            closed = true;
            open = ready;
            ready = null;
        }
        return open == null ? CompletableFuture.completedFuture(null) : closer.apply(open);
    }
}
