package dev.mortise.lock.internal.semaphore;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.PermitLease;
import dev.mortise.lock.internal.LeaseGroup;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The {@link PermitLease} of {@link NativeSemaphore}: one server hold that carries all
 * {@link #count()} permits, so one lease, one fencing token, one holder id. Not API.
 *
 * <p>Thread-safe.
 */
final class NativePermitLease implements PermitLease {

    private final String semaphore;
    private final String backend;
    private final int count;
    private final LockLease lease;
    private final LeaseGroup group;

    NativePermitLease(String semaphore, String backend, int count, LockLease lease) {
        this.semaphore = semaphore;
        this.backend = backend;
        this.count = count;
        this.lease = lease;
        this.group = new LeaseGroup(List.of(lease), "semaphore '" + semaphore + "' (" + count + " permits)", backend);
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

    @Override
    public List<LockLease> parts() {
        return group.parts();
    }

    /** The one token of the acquisition, from the semaphore's one counter. */
    @Override
    public List<Long> fencingTokens() {
        return List.of(lease.fencingToken());
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
        return "PermitLease[semaphore=" + semaphore + ", permits=" + count + ", token=" + lease.fencingToken()
                + ", backend=" + backend + (group.closed() ? ", closed" : "") + "]";
    }
}
