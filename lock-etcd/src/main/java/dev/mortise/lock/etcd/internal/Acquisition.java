package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.WaitSteps;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;

import java.time.Duration;
import java.util.Optional;

/**
 * Acquiring one lock, the etcd way: queue under the lock's prefix, hold when first (a reader:
 * when no writer is before it; permits: when they fit, {@link PermitAdmission}), else wait
 * ({@link QueueWait}: the steps that {@link Waiter} and {@link PermitWaiter} take) and clean up on
 * every way out. Thread-safe; {@link #tryAcquire} runs on its caller's thread.
 */
final class Acquisition {

    private final KeySpace keys;
    private final QueueEntry entry;
    private final QueueExit exit;
    private final QueueStay.Parts parts;

    Acquisition(KeySpace keys, LeaseKeeper leases, LockQueue queue, QueueEntry entry, QueueExit exit, Watch watch,
                Rpc rpc) {
        this.keys = keys;
        this.entry = entry;
        this.exit = exit;
        this.parts = new QueueStay.Parts(leases, queue, watch, rpc);
    }

    /** One attempt that never waits: busy never leaves a waiter key behind. */
    Optional<Grant> tryAcquire(LockRequest request) {
        ByteSequence prefix = keys.prefix(request.key());
        ByteSequence ownKey = keys.keyOf(request, prefix, 0);
        long requestedAt = System.nanoTime();
        QueueEntry.Queued queued = entry.enqueue(request, prefix, ownKey);
        if (request.takesPermits() ? entry.admit(request, prefix, ownKey, queued).fits()
                : queued.predecessor() == null) {
            return Optional.of(Grants.grant(request, ownKey, queued.revision(), queued.lease(), requestedAt));
        }
        exit.leave(ownKey, queued.lease(), request.key());
        return Optional.empty();
    }

    /** The wait for {@code request}, up to {@code wait}, as steps a driver runs ({@link QueueWait}). */
    WaitSteps waitFor(LockRequest request, Duration wait) {
        return new QueueWait(keys, entry, exit, parts, request, wait);
    }
}
