package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.PermitLease;
import dev.mortise.lock.internal.LeaseGroup;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@link PermitLease} of {@link SlotSemaphore}: the slot leases of one acquisition, in slot
 * order ({@link LeaseGroup} holds, extends, loses and closes them as one). Not API.
 *
 * <p>Thread-safe.
 */
final class SlotPermitLease implements PermitLease {

    private final String semaphore;
    private final String backend;
    private final List<Integer> slots;
    private final LeaseGroup group;

    /** @param taken the leases by slot, in ascending slot order */
    SlotPermitLease(String semaphore, String backend, Map<Integer, LockLease> taken) {
        this.semaphore = semaphore;
        this.backend = backend;
        this.slots = List.copyOf(taken.keySet());
        this.group = new LeaseGroup(List.copyOf(taken.values()),
                "semaphore '" + semaphore + "' (slots " + slots + ")", backend);
    }

    @Override
    public String semaphore() {
        return semaphore;
    }

    @Override
    public String backend() {
        return backend;
    }

    @Override
    public int count() {
        return slots.size();
    }

    @Override
    public List<Integer> slots() {
        return slots;
    }

    @Override
    public List<LockLease> parts() {
        return group.parts();
    }

    @Override
    public List<Long> fencingTokens() {
        return group.parts().stream().map(LockLease::fencingToken).toList();
    }

    @Override
    public boolean isValid() {
        return group.isValid();
    }

    @Override
    public Duration remaining() {
        return group.remaining();
    }

    @Override
    public void ensureValid() {
        group.ensureValid();
    }

    @Override
    public void extend(Duration lease) {
        group.extend(lease);
    }

    @Override
    public PermitLease onLost(Consumer<LockLostEvent> listener) {
        group.onLost(listener);
        return this;
    }

    @Override
    public void close() {
        group.closeLingering(Duration.ZERO);
    }

    @Override
    public String toString() {
        return "PermitLease[semaphore=" + semaphore + ", slots=" + slots + ", backend=" + backend
                + (group.closed() ? ", closed" : "") + "]";
    }
}
