package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.WaitStep;
import dev.mortise.lock.spi.Wakeup;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;

import java.util.concurrent.TimeUnit;

/**
 * One waiter's stay in a lock's queue under one key ({@link Waiter} for locks, {@link PermitWaiter}
 * for semaphores), taken one step at a time by {@link QueueWait}: it sleeps ({@link #sleep()}) until
 * its {@link Wakeup} is signalled (a watch event, a broken watch, our lease found lost) or a third of
 * the lease TTL passes, then {@link #afterSleep()} says how the stay goes on. Calls never overlap and
 * each happens after the previous one returned, though not always on the same thread; not
 * thread-safe otherwise.
 */
abstract class QueueStay implements AutoCloseable {

    /** How a step of a stay ended. */
    enum Outcome { GRANTED, GONE, TIMED_OUT, WAITING }

    /** What every stay uses: the lease keeper, the queue's transactions, the watch client, bounded calls. */
    record Parts(LeaseKeeper leases, LockQueue queue, Watch watch, Rpc rpc) {
    }

    /**
     * Where a stay is: our key {@code ownKey} under {@code prefix}, put at {@code revision} on
     * {@code lease}; the wait's {@code deadline} ({@link System#nanoTime()}) and the user's {@code key}.
     */
    record Spot(ByteSequence prefix, ByteSequence ownKey, long revision, EtcdLease lease, long deadline, String key) {
    }

    final Parts parts;
    final Spot spot;
    /** Signalled by the stay's watch and by our lease's loss; a sleep ends on it. */
    final Wakeup wake = new Wakeup();
    private final long recheckNanos;
    private long grantedRequestedAt;

    QueueStay(Parts parts, Spot spot) {
        this.parts = parts;
        this.spot = spot;
        this.recheckNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(100, spot.lease().ttlSeconds() * 1000 / 3));
    }

    /** The sleep before the next {@link #afterSleep()}: until woken, a third of the TTL, or the deadline. */
    final WaitStep sleep() {
        return WaitStep.sleep(wake.future(), Math.min(spot.deadline() - System.nanoTime(), recheckNanos));
    }

    /**
     * After a sleep: the wait ran out if nothing woke it and the deadline passed; else {@link #step}
     * decides whether we hold the lock, our key is gone, or the stay goes on ({@link Outcome#WAITING}:
     * sleep again, unless the deadline has passed meanwhile).
     *
     * @throws InterruptedException if the blocking caller is interrupted during a look at the queue
     */
    final Outcome afterSleep() throws InterruptedException {
        boolean woken = wake.take();
        if (!woken && pastDeadline()) {
            return Outcome.TIMED_OUT;
        }
        Outcome outcome = step(woken);
        return outcome == Outcome.WAITING && pastDeadline() ? Outcome.TIMED_OUT : outcome;
    }

    /** One step after a sleep that was {@code woken} (else a third of the TTL passed). */
    abstract Outcome step(boolean woken) throws InterruptedException;

    /** Records a grant resting on the look sent at {@code requestedAt} ({@link System#nanoTime()}). */
    final Outcome granted(long requestedAt) {
        grantedRequestedAt = requestedAt;
        return Outcome.GRANTED;
    }

    /** {@link System#nanoTime()} before the look that granted, after {@link Outcome#GRANTED}. */
    final long grantedRequestedAt() {
        return grantedRequestedAt;
    }

    private boolean pastDeadline() {
        return spot.deadline() - System.nanoTime() <= 0;
    }

    /** The stay's current watch. */
    abstract WakingWatch watching();

    /** Stops the watch and the wake-up on lease loss. */
    @Override
    public final void close() {
        spot.lease().stopWaking(wake);
        watching().close();
    }
}
