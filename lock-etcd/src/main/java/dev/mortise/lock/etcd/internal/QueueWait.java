package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.Deadlines;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import dev.mortise.lock.spi.WaitStep;
import dev.mortise.lock.spi.WaitSteps;
import io.etcd.jetcd.ByteSequence;

import java.time.Duration;
import java.util.concurrent.CancellationException;

/**
 * One request's wait, the etcd way, as {@link WaitSteps}: queue under the lock's prefix, hold when
 * first (a reader: when no writer is before it; permits: when they fit, {@link PermitAdmission}),
 * else stay in the queue ({@link Waiter}, {@link PermitWaiter}) sleeping between looks, and take our
 * key out on every way out ({@link #end}). A key that vanished with its lease while waiting is
 * queued again under a fresh one, until the wait is over. The same steps serve the blocking
 * {@code acquire} and {@code acquireAsync} ({@link dev.mortise.lock.spi.WaitDriver}). Steps never
 * overlap (the driver's promise); not thread-safe otherwise.
 */
final class QueueWait implements WaitSteps {

    private final KeySpace keys;
    private final QueueEntry entry;
    private final QueueExit exit;
    private final QueueStay.Parts parts;
    private final long deadline;
    private final ByteSequence prefix;
    private LockRequest request;
    private int round;
    /** Our key while it is in the queue and not granted (end takes it out), with its entry and stay; else null. */
    private ByteSequence ownKey;
    private QueueEntry.Queued queued;
    private QueueStay stay;

    QueueWait(KeySpace keys, QueueEntry entry, QueueExit exit, QueueStay.Parts parts, LockRequest request,
              Duration wait) {
        this.keys = keys;
        this.entry = entry;
        this.exit = exit;
        this.parts = parts;
        this.request = request;
        this.deadline = Deadlines.after(System.nanoTime(), wait);
        this.prefix = keys.prefix(request.key());
    }

    @Override
    public WaitStep next() throws InterruptedException {
        while (true) {
            if (stay == null) {
                return enter();
            }
            switch (stay.afterSleep()) {
                case WAITING -> {
                    return stay.sleep();
                }
                case GRANTED -> {
                    Grant grant = Grants.grant(request, ownKey, queued.revision(), queued.lease(),
                            stay.grantedRequestedAt());
                    ownKey = null; // ours now: end keeps it
                    return WaitStep.granted(grant);
                }
                case TIMED_OUT -> {
                    return WaitStep.ranOut();
                }
                case GONE -> {
                    if (gone()) {
                        return WaitStep.ranOut();
                    }
                }
            }
        }
    }

    /** One round of queueing: our key put, held at once, or a stay begun (its first sleep). */
    private WaitStep enter() {
        ByteSequence candidate = keys.keyOf(request, prefix, round++);
        long requestedAt = System.nanoTime();
        QueueEntry.Queued entered = entry.enqueue(request, prefix, candidate);
        PermitAdmission admission = request.takesPermits() ? entry.admit(request, prefix, candidate, entered) : null;
        if (admission != null ? admission.fits() : entered.predecessor() == null) {
            return WaitStep.granted(Grants.grant(request, candidate, entered.revision(), entered.lease(), requestedAt));
        }
        ownKey = candidate;
        queued = entered;
        if (deadline - System.nanoTime() <= 0) {
            return WaitStep.ranOut();
        }
        QueueStay.Spot spot = new QueueStay.Spot(prefix, candidate, entered.revision(), entered.lease(), deadline,
                request.key());
        stay = admission != null ? new PermitWaiter(parts, spot, request.permits().count(), admission)
                : new Waiter(parts, spot, request.shared(), entered.predecessor(), entered.ahead());
        return stay.sleep();
    }

    /**
     * Our key vanished with its lease (or was deleted): out with this stay, to queue again under a
     * fresh one. A session we gave up on may still hold our old key on the server until it expires:
     * take it out.
     *
     * @return whether the wait is over (its deadline passed)
     */
    private boolean gone() {
        QueueStay ending = stay;
        stay = null;
        ending.close();
        exit.abandon(ownKey, queued.lease());
        ownKey = null;
        if (ending instanceof PermitWaiter permits && request.permits().count() <= permits.storedCount()) {
            // We were waiting, so we follow the stored count: queue again under it, not our first one.
            request = new LockRequest(request.key(), request.owner(), request.lease(), request.renewed(),
                    request.mode(), new Permits(request.permits().count(), permits.storedCount()));
        }
        return deadline - System.nanoTime() <= 0;
    }

    @Override
    public void end(boolean granted, Throwable failure) {
        if (stay != null) {
            stay.close();
            stay = null;
        }
        if (granted || ownKey == null) {
            return;
        }
        if (failure == null || failure instanceof InterruptedException || failure instanceof CancellationException) {
            exit.leaveOrLater(ownKey, queued.lease(), request.key()); // gone before we return, as promised
        } else {
            // etcd is failing us: do not spend another timeout on the way out; clean up in the background.
            exit.abandon(ownKey, queued.lease());
        }
        ownKey = null;
    }
}
