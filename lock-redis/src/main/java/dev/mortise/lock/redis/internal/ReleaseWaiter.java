package dev.mortise.lock.redis.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One waiting call's view of its key's release channel ({@link ReleaseChannels}): it learns of
 * releases, and of a hand-off to its owner (fair mode, or a waiting writer in the default mode),
 * published after it joined. A hand-off to another owner is no release: the lock is held again.
 *
 * <p>When a release arrives while the waiting thread sleeps, the message thread sends the
 * retry itself ({@code retry}), and the waiting thread wakes once, with the answer: a
 * hand-off costs the release, the message and one acquire round trip, with no thread
 * wake-up in between. A release that arrives while the thread's own attempt is on its way
 * is remembered, and the thread retries at once. One waiting thread uses it; the message
 * thread and the reply thread meet it under its lock (a {@link ReentrantLock}, not a monitor:
 * a virtual thread waiting here does not pin its carrier on JDK 21-23).
 */
final class ReleaseWaiter {

    /** What woke the waiting thread. */
    enum News {
        /** The release script handed the lock to this owner ({@link #handedToken()}). */
        HANDED,
        /** The message thread sent a retry ({@link #takeRetry()}); it may still be on its way. */
        RETRIED,
        /** A release came while the thread was busy, or the wait ran out: try again. */
        TRY_AGAIN
    }

    private static final String RELEASED = "released";

    private final String key;
    private final RedisKeys keys;
    private final String handOffPrefix;
    private final Supplier<PendingAttempt> retry;
    private final Consumer<PendingAttempt> abandon;
    private ReleaseChannels channels;
    private CompletableFuture<Void> subscribed;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled on every change the waiting thread may wait for. */
    private final Condition changed = lock.newCondition();

    // guarded by lock
    private boolean sleeping;
    private boolean released;
    private boolean retrying;
    private boolean closed;
    private boolean grantedAtClose;
    private PendingAttempt retried;
    private String handedToken;

    /**
     * @param handedOwner the waiting owner a release may hand the lock to (hand-off messages name it):
     *                    every waiter in fair mode, a waiting writer in the default mode; or null
     * @param retry     starts one acquire attempt; called on the message thread, must not block
     * @param abandon   gives back whatever a retry may take that the waiting thread will never read
     */
    ReleaseWaiter(String key, RedisKeys keys, String handedOwner, Supplier<PendingAttempt> retry,
                  Consumer<PendingAttempt> abandon) {
        this.key = key;
        this.keys = keys;
        this.handOffPrefix = handedOwner == null ? null : handedOwner + " ";
        this.retry = retry;
        this.abandon = abandon;
    }

    String key() {
        return key;
    }

    RedisKeys keys() {
        return keys;
    }

    void joined(ReleaseChannels channels, CompletableFuture<Void> subscribed) {
        this.channels = channels;
        this.subscribed = subscribed;
    }

    /**
     * Waits until the server confirmed the subscription, at most the operation timeout; from
     * then on no release is missed.
     *
     * @throws dev.mortise.lock.LockBackendException if it is not confirmed in time
     */
    void awaitSubscribed(ScriptRunner runner) {
        if (!subscribed.isDone() || subscribed.isCompletedExceptionally()) {
            runner.await(subscribed, runner.timeout(), key, "subscribe to releases of");
        }
    }

    /** On the message thread: a release (or a fair hand-off) was published for the key. */
    void onMessage(String message) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (!RELEASED.equals(message)) {
                if (handOffPrefix != null && message.startsWith(handOffPrefix)) {
                    handedToken = message.substring(handOffPrefix.length());
                    changed.signalAll();
                }
                return; // else handed to another waiter, who holds it now: nothing to try
            }
            if (!sleeping || retrying || handedToken != null) {
                released = true; // the thread's own attempt (or a retry) is on its way: try again after it
                changed.signalAll();
                return;
            }
            sleeping = false;
            retrying = true;
        } finally {
            lock.unlock();
        }
        // Sent outside the lock: the reply thread needs it to wake the waiting thread.
        PendingAttempt pending;
        try {
            pending = retry.get();
        } catch (RuntimeException e) {
            lock.lock();
            try {
                retrying = false;
                released = true; // the waiting thread retries and meets the failure itself
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            return;
        }
        boolean orphaned;
        lock.lock();
        try {
            orphaned = closed;
            if (orphaned) {
                retrying = false;
            } else {
                retried = pending;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (orphaned) {
            if (!grantedAtClose) {
                abandon.accept(pending);
            }
            return;
        }
        pending.reply().whenComplete((reply, failure) -> wake());
    }

    private void wake() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The waiting thread is about to send an attempt itself: releases seen so far are covered by it. */
    void beforeAttempt() {
        lock.lock();
        try {
            released = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * After a busy attempt: sleeps until a release, a hand-off, the answer to a retry the
     * message thread sent, or {@code nanos} pass.
     *
     * @throws InterruptedException if interrupted; the caller then closes the waiter
     */
    News await(long nanos) throws InterruptedException {
        lock.lock();
        try {
            if (handedToken == null && !released) {
                sleep(nanos);
            }
            if (handedToken != null) {
                return News.HANDED;
            }
            if (retrying) {
                return News.RETRIED;
            }
            released = false;
            return News.TRY_AGAIN;
        } finally {
            lock.unlock();
        }
    }

    /** The sleep of {@link #await} (lock held). */
    private void sleep(long nanos) throws InterruptedException {
        sleeping = true;
        long deadline = System.nanoTime() + nanos;
        try {
            while (handedToken == null && !released && !(retried != null && retried.reply().isDone())) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                changed.awaitNanos(left);
            }
            while (retrying && retried == null) {
                changed.await(); // the message thread is sending a retry this very moment
            }
        } finally {
            sleeping = false;
        }
    }

    /** The retry the message thread sent (after {@link News#RETRIED}); the caller now owns its outcome. */
    PendingAttempt takeRetry() {
        lock.lock();
        try {
            PendingAttempt pending = retried;
            retried = null;
            retrying = false;
            return pending;
        } finally {
            lock.unlock();
        }
    }

    /** The token the release script sent with the hand-off to this owner, or null. */
    Long handedToken() {
        lock.lock();
        try {
            return handedToken == null ? null : Long.valueOf(handedToken);
        } finally {
            lock.unlock();
        }
    }

    /** Forgets a hand-off found stale (made before a refusal the waiting thread has had since). */
    void discardHandOff() {
        lock.lock();
        try {
            handedToken = null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops listening and leaves the key's subscription (which lingers if this was its last
     * waiter). If the wait ended without a grant, a retry the message thread sent that no one
     * read is abandoned (whatever it may take is given back).
     */
    void close(boolean granted) {
        PendingAttempt orphan;
        lock.lock();
        try {
            closed = true;
            grantedAtClose = granted;
            orphan = retried;
            retried = null;
            if (orphan != null) {
                retrying = false;
            }
        } finally {
            lock.unlock();
        }
        if (channels != null) {
            channels.leave(this);
        }
        if (orphan != null && !granted) {
            abandon.accept(orphan);
        }
    }
}
