package dev.mortise.lock.bench.subject;

import java.time.Duration;

/**
 * One library (or floor) under measurement, connected to one server. Thread-safe: the
 * harness shares one instance between all its threads, as an application shares one client.
 * Every subject works under its own key prefix, so subjects never contend with each other.
 */
public interface LockSubject extends AutoCloseable {

    /** Its id in the catalog, e.g. {@code redis/redisson-rlock}. */
    String id();

    /** What the report calls it, e.g. {@code Redisson RLock}. */
    String label();

    Role role();

    /**
     * Acquires {@code key}, waiting up to {@code wait} if it is held.
     *
     * @return the hold, or {@code null} if not granted in time
     */
    Held acquire(String key, Duration wait) throws Exception;

    /** Whether {@link #acquire} can wait for a held lock (ShedLock and the floors cannot). */
    default boolean canWait() {
        return role() != Role.FLOOR;
    }

    @Override
    void close() throws Exception;
}
