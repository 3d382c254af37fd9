package dev.mortise.lock.spring;

import org.springframework.context.ApplicationEvent;

/**
 * Published when this instance becomes the leader of a group. Published on the election's own
 * callback thread ({@code mortise-leadership-<group>}), never on a lock client's thread; a
 * group's events come one at a time, in order (elected, revoked, elected, ...).
 */
public final class LeadershipElectedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final String group;
    private final long epoch;

    public LeadershipElectedEvent(Leadership source, String group, long epoch) {
        super(source);
        this.group = group;
        this.epoch = epoch;
    }

    /** The group. */
    public String group() {
        return group;
    }

    /** The term's epoch: the fencing token of the leadership lease, greater than every earlier term's. */
    public long epoch() {
        return epoch;
    }

    @Override
    public String toString() {
        return "LeadershipElectedEvent[group=" + group + ", epoch=" + epoch + "]";
    }
}
