package dev.mortise.lock;

/**
 * How a hold shares its key with other holds.
 *
 * <ul>
 *   <li>{@link #EXCLUSIVE} (write): excludes every other hold of the key, shared or exclusive.
 *       The default, and what every lock without a mode is.</li>
 *   <li>{@link #SHARED} (read): coexists with other shared holds of the key, and with none
 *       that is exclusive. Once an exclusive request waits, new shared requests queue behind
 *       it, so a steady stream of readers never starves a writer.</li>
 * </ul>
 *
 * <p>Every grant of a key, in either mode, takes its fencing token from the key's one
 * counter: tokens increase strictly over all grants of the key.
 */
public enum LockMode {
    /** Write: no other hold of the key at the same time. */
    EXCLUSIVE,
    /** Read: other shared holds of the key may be valid at the same time; no exclusive one. */
    SHARED
}
