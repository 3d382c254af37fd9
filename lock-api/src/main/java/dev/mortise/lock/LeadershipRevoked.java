package dev.mortise.lock;

import java.time.Duration;

/**
 * What {@link LeadershipListener#onRevoked} receives when a term of leadership ends.
 *
 * @param group      the group
 * @param epoch      the epoch of the term that ended (its lease's fencing token): writes with it must now
 *                   be refused
 * @param reason     why it ended
 * @param lostReason why the lease was lost, for {@link Reason#LOST}; {@code null} otherwise
 * @param ledFor     how long the term lasted, from the grant to its end as the candidate saw it
 */
public record LeadershipRevoked(String group, long epoch, Reason reason, LostReason lostReason, Duration ledFor) {

    /** Why a term of leadership ended. */
    public enum Reason {
        /** The leadership lease was lost (expired, refused renewal, session ended, client closed); the candidate contends again. */
        LOST,
        /** {@link LeaderElection#stepDown()} released it; the candidate contends again after a pause. */
        STEPPED_DOWN,
        /** {@link LeaderElection#close()} released it; the candidate no longer contends. */
        CLOSED
    }
}
