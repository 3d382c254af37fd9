package dev.mortise.lock.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The all-or-nothing multi-key acquire of one dialect, behind
 * {@link dev.mortise.lock.spi.LockBackend#tryAcquireAll}. One write statement takes every part only
 * if, as that statement reads the table, no key of the batch is held against its part (an unexpired
 * holder of another owner; for a shared part, an unexpired exclusive holder or an unexpired waiting
 * writer's marker): otherwise it writes nothing. Each part it takes is written exactly as the
 * dialect's single acquire of that mode writes it (same row, same token expression, same columns), so
 * renew, renewAll, release and inspect treat batch grants as single ones.
 *
 * <p>A part can still be refused while others are taken when another session changes one of the
 * rows between the statement's check and its write (a key first inserted, or taken, concurrently):
 * the answer then says which parts were taken, and the caller releases them. Runs on an autocommit
 * connection it is given; thread-safe.
 */
public interface BatchSql {

    /**
     * One part of a batch: the stored key, a fresh owner, and whether it asks for a shared hold.
     *
     * @param key    the key as stored (the single acquire's encoding)
     * @param owner  the request's owner, unique to it
     * @param shared whether the part is a shared (read) hold
     */
    record Part(StoredKey key, String owner, boolean shared) {
    }

    /**
     * Whether this dialect takes {@code parts} in one batch. False where a mix of modes has no native
     * statement (then the backend answers {@code null} and the core takes the keys one by one).
     */
    boolean accepts(List<Part> parts);

    /**
     * Sends the batch (see the class comment for what it takes).
     *
     * @param parts       distinct keys, at least one, all {@link #accepts accepted}
     * @param requestedAt set to {@link System#nanoTime()} just before the write statement is sent
     * @return the fencing token of each part, in order, or 0 for a part not taken: all 0 when a key was
     *         busy as the statement found it
     */
    long[] acquireAll(Connection connection, List<Part> parts, long leaseMillis, long[] requestedAt)
            throws SQLException;

    /** The statements the batch sends when every key is free, for docs and messages. */
    String cost();
}
