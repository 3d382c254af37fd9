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
    KILL;

    /** The lower-case name used on the command line and in the report. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
