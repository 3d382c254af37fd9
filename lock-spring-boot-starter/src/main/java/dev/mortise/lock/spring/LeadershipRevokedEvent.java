package dev.mortise.lock.spring;

import dev.mortise.lock.LeadershipRevoked;
import dev.mortise.lock.LostReason;
import org.springframework.context.ApplicationEvent;

import java.time.Duration;

/**
 * Published when this instance stops leading a group: the lease was lost, it stepped down, or
 * the application is stopping. Published on the election's own callback thread, after
 * {@link Leadership#isLeader()} has turned false, and after the matching
 * {@link LeadershipElectedEvent}.
 */
public final class LeadershipRevokedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final transient LeadershipRevoked revoked;

    public LeadershipRevokedEvent(Leadership source, LeadershipRevoked revoked) {
        super(source);
        this.revoked = revoked;
    }

    /** The group. */
    public String group() {
        return revoked.group();
    }

    /** The epoch of the term that ended: writes with it must now be refused. */
    public long epoch() {
        return revoked.epoch();
    }

    /** Why the term ended. */
    public LeadershipRevoked.Reason reason() {
        return revoked.reason();
    }

    /** Why the lease was lost, for {@link LeadershipRevoked.Reason#LOST}; {@code null} otherwise. */
    public LostReason lostReason() {
        return revoked.lostReason();
    }

    /** How long the term lasted. */
    public Duration ledFor() {
        return revoked.ledFor();
    }

    @Override
    public String toString() {
        return "LeadershipRevokedEvent[" + revoked + "]";
    }
}
