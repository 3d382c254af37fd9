package dev.mortise.lock.chaos;

/**
 * A fault the controller injects into one worker while it is inside its critical section.
 */
public enum Fault {
    /** No fault: the baseline. */
    NONE,
    /** SIGSTOP for longer than the lease, then SIGCONT: a stop-the-world GC pause. */
    PAUSE,
    /** kill -9: the holder dies holding the lock; a fresh worker replaces it. */
    KILL,
    /**
     * kill -9 of the lock backend's server (not the ledger's) while a worker holds a lock, then
     * a restart on the same port and data directory. Redis runs without persistence, so its
     * fencing counters start again: the ledger must keep rejecting the lower tokens.
     */
    SERVER_KILL;

    /** The lower-case name used on the command line and in the report ({@code server-kill}). */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** The fault for a label ({@code pause}, {@code kill}, {@code server-kill}, {@code none}). */
    public static Fault of(String label) {
        return valueOf(label.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    }
}
