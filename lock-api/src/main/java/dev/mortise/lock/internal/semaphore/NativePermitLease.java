package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.PermitLease;
import dev.mortise.lock.internal.group.GroupLease;

import java.util.List;

/**
 * The {@link PermitLease} of {@link NativeSemaphore}: one server hold that carries all
 * {@link #count()} permits, so one lease, one fencing token, one holder id.
 *
 * <p>Thread-safe.
 */
final class NativePermitLease extends GroupLease<PermitLease> implements PermitLease {

    private final String semaphore;
    private final String backend;
    private final int count;
    private final LockLease lease;

    NativePermitLease(String semaphore, String backend, int count, LockLease lease) {
        super(List.of(lease), "semaphore '" + semaphore + "' (" + count + " permits)", backend);
        this.semaphore = semaphore;
        this.backend = backend;
        this.count = count;
        this.lease = lease;
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
        return count;
    }

    /** Empty: a native semaphore has no slots (its permits are one hold of its one key). */
    @Override
    public List<Integer> slots() {
        return List.of();
    }

    /** The one token of the acquisition, from the semaphore's one counter. */
    @Override
    public List<Long> fencingTokens() {
        return List.of(lease.fencingToken());
    }

    @Override
    public String toString() {
        return "PermitLease[semaphore=" + semaphore + ", permits=" + count + ", token=" + lease.fencingToken()
                + ", backend=" + backend + (isClosed() ? ", closed" : "") + "]";
    }
}
