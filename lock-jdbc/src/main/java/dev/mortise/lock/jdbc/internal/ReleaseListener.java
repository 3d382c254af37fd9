package dev.mortise.lock.jdbc.internal;

/** A source of release announcements for {@link ReleaseSignals}: PostgreSQL LISTEN, or nothing. */
public interface ReleaseListener extends AutoCloseable {

    /** Starts listening if not yet, and waits up to {@code nanos} for it; false if not listening. */
    boolean awaitListening(long nanos) throws InterruptedException;

    boolean isListening();

    @Override
    void close();
}
