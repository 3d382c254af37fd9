package dev.mortise.lock.spring.internal;

/**
 * Observes annotated lock calls, with the operation's low-cardinality name (metrics plug
 * in here). Implementations are quick and never throw.
 */
public interface LockObserver {

    /** Observes nothing. */
    LockObserver NOOP = new LockObserver() {
        @Override
        public void acquireFinished(LockOperation operation, String backend, Outcome outcome, long nanos) {
        }

        @Override
        public Runnable held(LockOperation operation, String backend, String key) {
            return () -> { };
        }
    };

    /** How an acquisition ended. */
    enum Outcome {
        ACQUIRED, BUSY, TIMEOUT, ERROR;

        /** The tag value: "acquired", "busy", ... */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** An acquisition for {@code operation} ended after {@code nanos}. */
    void acquireFinished(LockOperation operation, String backend, Outcome outcome, long nanos);

    /**
     * The lock on {@code key} is now held for {@code operation}.
     *
     * @return run once when it is released
     */
    Runnable held(LockOperation operation, String backend, String key);
}
