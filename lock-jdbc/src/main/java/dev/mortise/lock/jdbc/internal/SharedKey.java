package dev.mortise.lock.jdbc.internal;

/**
 * The {@link dev.mortise.lock.spi.Grant#state()} of a shared hold: its stored key, and whether it is a
 * semaphore's permit hold (released by {@link PermitSql#release}, which also drops its count). An
 * exclusive hold's state is the stored key as a plain {@code String}, as before shared locks.
 */
public record SharedKey(String stored, boolean permits) {

    /** A shared hold without permits. */
    public SharedKey(String stored) {
        this(stored, false);
    }
}
