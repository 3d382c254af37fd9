package dev.mortise.lock.bench.subject;

import dev.mortise.lock.bench.common.Role;
import java.time.Duration;
import java.util.List;

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

    /**
     * Acquires {@code key} in shared (read) or exclusive (write) mode, waiting up to {@code wait}.
     * Only subjects in {@link SubjectCatalog#readWriteIds} support {@code shared = true}.
     *
     * @return the hold, or {@code null} if not granted in time
     * @throws UnsupportedOperationException if the subject has no shared mode
     */
    default Held acquire(String key, boolean shared, Duration wait) throws Exception {
        if (!shared) {
            return acquire(key, wait);
        }
        throw new UnsupportedOperationException(id() + " has no shared (read) mode");
    }

    /**
     * Acquires every one of {@code keys} (exclusive) as one hold, waiting up to {@code wait}.
     * Only subjects in {@link SubjectCatalog#multiKeyIds} support it.
     *
     * @return the hold of all keys, or {@code null} if not all were granted in time (none is then held)
     * @throws UnsupportedOperationException if the subject has no multi-key lock
     */
    default Held acquireAll(List<String> keys, Duration wait) throws Exception {
        throw new UnsupportedOperationException(id() + " has no multi-key lock");
    }

    /** Whether {@link #acquire} can wait for a held lock (ShedLock and the floors cannot). */
    default boolean canWait() {
        return role() != Role.FLOOR;
    }

    @Override
    void close() throws Exception;
}
