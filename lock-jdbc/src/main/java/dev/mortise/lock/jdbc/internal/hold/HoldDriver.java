package dev.mortise.lock.jdbc.internal.hold;

import dev.mortise.lock.jdbc.internal.JdbcWait;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;

import java.time.Duration;

/**
 * One kind of hold (exclusive, shared, permits) and everything the backend does with it: its
 * attempts, what a wait that gives up removes, its renewal and its release. {@link Holds} chooses
 * the driver once per request (by its mode and permits) or grant (by its state). Thread-safe.
 */
public interface HoldDriver {

    /**
     * One attempt, without waiting.
     *
     * @throws dev.mortise.lock.LockBackendException if the database could not be reached or refused
     */
    Attempt tryAcquire(LockRequest request);

    /**
     * The attempts of one wait for {@code request} ({@link JdbcWait}): each attempt of it, and what
     * the wait leaves on the row that its giving up removes. A new object per wait, used by its steps one at a time.
     *
     * @param storedKey the request's key as stored
     */
    JdbcWait.Attempts waitFor(LockRequest request, String storedKey);

    /** Extends the hold if it is still the grant's owner's and unexpired; false if it is gone. */
    boolean renew(Grant grant, Duration lease);

    /** Ends the hold if it is still the grant's owner's and unexpired; false if it was gone. */
    boolean release(Grant grant);
}
