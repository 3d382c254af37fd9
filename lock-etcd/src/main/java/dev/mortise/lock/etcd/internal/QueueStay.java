package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.spi.WaitStep;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;

/**
 * One waiter's stay in a lock's queue under one key ({@link Waiter} for locks, {@link PermitWaiter}
 * for semaphores), taken one step at a time by {@link QueueWait}: it sleeps ({@link #sleep()}) until
 * its {@link dev.mortise.lock.spi.Wakeup} is signalled (a watch event, a broken watch, our lease
 * found lost) or a third of the lease TTL passes, then {@link #afterSleep()} says how the stay goes
 * on. Calls never overlap and each happens after the previous one returned, though not always on
 * the same thread; not thread-safe otherwise.
 */
interface QueueStay extends AutoCloseable {

    /** How a step of a stay ended. */
    enum Outcome { GRANTED, GONE, TIMED_OUT, WAITING }

    /** The sleep before the next {@link #afterSleep()}: until woken, a third of the TTL, or the deadline. */
    WaitStep sleep();

    /**
     * After a sleep: looks again if woken or a third of the TTL passed, and says whether we hold the
     * lock, our key is gone, the wait ran out, or it goes on ({@link Outcome#WAITING}: sleep again).
     *
     * @throws InterruptedException if the blocking caller is interrupted during a look at the queue
     */
    Outcome afterSleep() throws InterruptedException;

    /** {@link System#nanoTime()} before the look that granted, after {@link Outcome#GRANTED}. */
    long grantedRequestedAt();

    /** Stops the watch and the wake-up on lease loss. */
    @Override
    void close();

    /** What every stay uses: the lease keeper, the queue's transactions, the watch client, bounded calls. */
    record Parts(LeaseKeeper leases, LockQueue queue, Watch watch, Rpc rpc) {
    }

    /**
     * Where a stay is: our key {@code ownKey} under {@code prefix}, put at {@code revision} on
     * {@code lease}; the wait's {@code deadline} ({@link System#nanoTime()}) and the user's {@code key}.
     */
    record Spot(ByteSequence prefix, ByteSequence ownKey, long revision, EtcdLease lease, long deadline, String key) {

        /** A look every third of the lease TTL, at least every 100 ms apart. */
        long recheckNanos() {
            return java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Math.max(100, lease.ttlSeconds() * 1000 / 3));
        }

        /** Sleeps on {@code wake} until the next recheck or the deadline, whichever is first. */
        WaitStep sleep(java.util.concurrent.CompletableFuture<?> wake) {
            return WaitStep.sleep(wake, Math.min(deadline - System.nanoTime(), recheckNanos()));
        }

        boolean pastDeadline() {
            return deadline - System.nanoTime() <= 0;
        }
    }
}
