package dev.mortise.lock;

/**
 * Told when a {@link LeaderElection} candidate becomes leader and when it stops being leader.
 * Both run on the election's own callback thread, never on a watchdog or backend thread, one at a
 * time and in order (elected, revoked, elected, ...). Exceptions are logged and ignored.
 */
public interface LeadershipListener {

    /**
     * This candidate leads from now, with {@code epoch} (the fencing token of its leadership
     * lease). By the time it runs the term may already have ended; {@code onRevoked} then follows.
     */
    default void onElected(long epoch) {
    }

    /** This candidate's term (the one {@link #onElected} announced) has ended, for the reason given. */
    default void onRevoked(LeadershipRevoked revoked) {
    }
}
