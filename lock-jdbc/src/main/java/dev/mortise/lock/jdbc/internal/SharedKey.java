package dev.mortise.lock.jdbc.internal;

/**
 * The {@link dev.mortise.lock.spi.Grant#state()} of a shared hold: its stored key. An exclusive
 * hold's state is the stored key as a plain {@code String}, as before shared locks.
 */
public record SharedKey(String stored) {
}
