package dev.mortise.lock.test;

import dev.mortise.lock.spi.Grant;

/**
 * A hold {@link TestLockClient#steal} gave to another owner: "another process" that holds the
 * key with a newer fencing token until its lease runs out (on the test's ticker) or
 * {@link #release()}. Thread-safe.
 */
public final class StolenLock {

    private final Grant grant;
    private final ControlledBackend backend;

    StolenLock(Grant grant, ControlledBackend backend) {
        this.grant = grant;
        this.backend = backend;
    }

    public String key() {
        return grant.key();
    }

    /** The new holder's owner id. */
    public String owner() {
        return grant.owner();
    }

    /** The new holder's fencing token: higher than every token granted for the key before. */
    public long fencingToken() {
        return grant.fencingToken();
    }

    /**
     * Releases the stolen hold, as its owner would; waiters for the key are woken. Idempotent.
     *
     * @return true if it was still held (not released nor expired)
     */
    public boolean release() {
        return backend.release(grant);
    }

    @Override
    public String toString() {
        return "StolenLock[key=" + key() + ", token=" + fencingToken() + "]";
    }
}
