package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.PermitLease;
import dev.mortise.lock.internal.group.GroupLease;

import java.util.List;
import java.util.Map;

/**
 * The {@link PermitLease} of {@link SlotSemaphore}: the slot leases of one acquisition, in slot
 * order ({@link GroupLease} holds, extends, loses and closes them as one).
 *
 * <p>Thread-safe.
 */
final class SlotPermitLease extends GroupLease<PermitLease> implements PermitLease {

    private final String semaphore;
    private final String backend;
    private final List<Integer> slots;

    /** @param taken the leases by slot, in ascending slot order */
    SlotPermitLease(String semaphore, String backend, Map<Integer, LockLease> taken) {
        super(List.copyOf(taken.values()), "semaphore '" + semaphore + "' (slots " + List.copyOf(taken.keySet()) + ")",
                backend);
        this.semaphore = semaphore;
        this.backend = backend;
        this.slots = List.copyOf(taken.keySet());
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
    public List<Long> fencingTokens() {
        return parts().stream().map(LockLease::fencingToken).toList();
    }

    @Override
    public String toString() {
        return "PermitLease[semaphore=" + semaphore + ", slots=" + slots + ", backend=" + backend
                + (isClosed() ? ", closed" : "") + "]";
    }
}
