package dev.mortise.lock.internal.group;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The base of the handles that hold several ordinary leases as one (a multi-key lease, a
 * several-permit lease): what they share is forwarded to one {@link LeaseGroup} here, so a
 * subclass adds only what it names (keys, slots, tokens) and its {@code toString}.
 *
 * <p>Thread-safe, as {@link LeaseGroup} is.
 *
 * @param <S> the handle type {@link #onLost} returns (the subclass's interface)
 */
public abstract class GroupLease<S> {

    private final LeaseGroup group;

    /**
     * @param parts   the leases in the order they were taken (they are closed in reverse)
     * @param what    names the group in messages and logs, e.g. "multi-key lock [a, b]"
     * @param backend the backend that granted them
     */
    protected GroupLease(List<LockLease> parts, String what, String backend) {
        this.group = new LeaseGroup(parts, what, backend);
    }

    public List<LockLease> parts() {
        return group.parts();
    }

    public boolean isValid() {
        return group.isValid();
    }

    public Duration remaining() {
        return group.remaining();
    }

    public void ensureValid() {
        group.ensureValid();
    }

    public void extend(Duration lease) {
        group.extend(lease);
    }

    @SuppressWarnings("unchecked") // S is the subclass's own interface: this handle is one
    public S onLost(Consumer<LockLostEvent> listener) {
        group.onLost(listener);
        return (S) this;
    }

    public void close() {
        group.closeLingering(Duration.ZERO);
    }

    public void closeLingering(Duration linger) {
        group.closeLingering(linger);
    }

    /** Whether {@link #close()} (or {@link #closeLingering}) was called, for {@code toString}. */
    protected boolean isClosed() {
        return group.closed();
    }
}
