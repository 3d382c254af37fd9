package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;

import java.time.Duration;
import java.util.Optional;

/**
 * Acquiring one lock, the etcd way: queue under the lock's prefix, hold when first (a reader:
 * when no writer is before it; permits: when they fit, {@link PermitAdmission}), else wait
 * ({@link Waiter}, {@link PermitWaiter}) and clean up on every way out. A key that vanished
 * with its lease while waiting is queued again under a fresh one, until the wait is over.
 * Thread-safe; each call runs on its caller's thread.
 */
final class Acquisition {

    private final KeySpace keys;
    private final LeaseKeeper leases;
    private final LockQueue queue;
    private final QueueEntry entry;
    private final QueueExit exit;
    private final Watch watch;
    private final Rpc rpc;

    Acquisition(KeySpace keys, LeaseKeeper leases, LockQueue queue, QueueEntry entry, QueueExit exit, Watch watch,
                Rpc rpc) {
        this.keys = keys;
        this.leases = leases;
        this.queue = queue;
        this.entry = entry;
        this.exit = exit;
        this.watch = watch;
        this.rpc = rpc;
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

    /**
     * Queues and waits up to {@code wait}.
     *
     * @throws InterruptedException if interrupted while waiting; our key is gone first
     */
    Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
        String key = request.key();
        long deadline = Deadlines.after(System.nanoTime(), wait);
        ByteSequence prefix = keys.prefix(key);
        Waiter waiter = new Waiter(leases, queue, watch, rpc);
        PermitWaiter permitWaiter = new PermitWaiter(leases, queue, watch, rpc);
        for (int round = 0; ; round++) {
            ByteSequence ownKey = keys.keyOf(request, prefix, round);
            long requestedAt = System.nanoTime();
            QueueEntry.Queued queued = entry.enqueue(request, prefix, ownKey);
            EtcdLease lease = queued.lease();
            PermitAdmission admission = request.takesPermits() ? entry.admit(request, prefix, ownKey, queued) : null;
            if (admission != null ? admission.fits() : queued.predecessor() == null) {
                return Optional.of(Grants.grant(request, ownKey, queued.revision(), lease, requestedAt));
            }
            Waiter.Outcome outcome;
            try {
                outcome = admission != null
                        ? permitWaiter.await(prefix, ownKey, queued.revision(), request.permits().count(), admission,
                                lease, deadline, key)
                        : waiter.await(prefix, request.shared(), ownKey, queued.revision(), queued.predecessor(),
                                queued.ahead(), lease, deadline, key);
            } catch (InterruptedException e) {
                exit.leaveOrLater(ownKey, lease, key); // gone before we return, as promised
                throw e;
            } catch (RuntimeException e) {
                // etcd is failing us: do not spend another timeout on the way out; clean up in the background.
                exit.abandon(ownKey, lease);
                throw e;
            }
            switch (outcome) {
                case GRANTED -> {
                    long grantedAt = admission != null ? permitWaiter.grantedRequestedAt() : waiter.grantedRequestedAt();
                    return Optional.of(Grants.grant(request, ownKey, queued.revision(), lease, grantedAt));
                }
                case TIMED_OUT -> {
                    exit.leaveOrLater(ownKey, lease, key);
                    return Optional.empty();
                }
                case GONE -> {
                    // Our key vanished with its lease (or was deleted): queue again under a fresh one. A session
                    // we gave up on may still hold our old key on the server until it expires: take it out.
                    exit.abandon(ownKey, lease);
                    if (admission != null && request.permits().count() <= permitWaiter.storedCount()) {
                        // We were waiting, so we follow the stored count: queue again under it, not our first one.
                        request = new LockRequest(request.key(), request.owner(), request.lease(), request.renewed(),
                                request.mode(), new Permits(request.permits().count(), permitWaiter.storedCount()));
                    }
                    if (deadline - System.nanoTime() <= 0) {
                        return Optional.empty();
                    }
                }
            }
        }
    }
}
