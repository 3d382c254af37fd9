package dev.mortise.lock.jdbc.internal;

import java.util.concurrent.CompletableFuture;

/** A source of release announcements for {@link ReleaseSignals}: PostgreSQL LISTEN, or nothing. Thread-safe. */
public interface ReleaseListener extends AutoCloseable {

    /** Starts listening if not yet, without waiting for it (a no-op once started or closed). */
    void start();

    /**
     * Complete while listening, and once closed; else a future completed when LISTEN is next up. What
     * a waiter that found the listener down sleeps on, instead of blocking a thread until it is up.
     */
    CompletableFuture<Void> listening();

    boolean isListening();

    @Override
    void close();
}
