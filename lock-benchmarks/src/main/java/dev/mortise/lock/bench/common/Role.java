package dev.mortise.lock.bench.common;

/** What a measured subject is in a comparison: Mortise itself, a peer library, or a floor. */
public enum Role {
    /** Mortise's {@code LockClient} over one of its backends. */
    MORTISE,
    /** Another lock library doing the same job against the same server. */
    PEER,
    /** The bare round trips a lock needs at least: what no library can beat. */
    FLOOR
}
