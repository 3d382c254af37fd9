package dev.mortise.lock.redis.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * thread and the reply thread meet it under its monitor.
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

    // guarded by this
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
        synchronized (this) {
            if (closed) {
                return;
            }
            if (!RELEASED.equals(message)) {
                if (handOffPrefix != null && message.startsWith(handOffPrefix)) {
                    handedToken = message.substring(handOffPrefix.length());
                    notifyAll();
                }
                return; // else handed to another waiter, who holds it now: nothing to try
            }
            if (!sleeping || retrying || handedToken != null) {
                released = true; // the thread's own attempt (or a retry) is on its way: try again after it
                notifyAll();
                return;
            }
            sleeping = false;
            retrying = true;
        }
        // Sent outside the monitor: the reply thread needs it to wake the waiting thread.
        PendingAttempt pending;
        try {
            pending = retry.get();
        } catch (RuntimeException e) {
            synchronized (this) {
                retrying = false;
                released = true; // the waiting thread retries and meets the failure itself
                notifyAll();
            }
            return;
        }
        boolean orphaned;
        synchronized (this) {
            orphaned = closed;
            if (orphaned) {
                retrying = false;
            } else {
                retried = pending;
            }
            notifyAll();
        }
        if (orphaned) {
            if (!grantedAtClose) {
                abandon.accept(pending);
            }
            return;
        }
        pending.reply().whenComplete((reply, failure) -> wake());
    }

    private synchronized void wake() {
        notifyAll();
    }

    /** The waiting thread is about to send an attempt itself: releases seen so far are covered by it. */
    synchronized void beforeAttempt() {
        released = false;
    }

    /**
     * After a busy attempt: sleeps until a release, a hand-off, the answer to a retry the
     * message thread sent, or {@code nanos} pass.
     *
     * @throws InterruptedException if interrupted; the caller then closes the waiter
     */
    synchronized News await(long nanos) throws InterruptedException {
        if (handedToken != null) {
            return News.HANDED;
        }
        if (!released) {
            sleeping = true;
            long deadline = System.nanoTime() + nanos;
            try {
                while (handedToken == null && !released && !(retried != null && retried.reply().isDone())) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
                while (retrying && retried == null) {
                    wait(); // the message thread is sending a retry this very moment
                }
            } finally {
                sleeping = false;
            }
        }
        if (handedToken != null) {
            return News.HANDED;
        }
        if (retrying) {
            return News.RETRIED;
        }
        released = false;
        return News.TRY_AGAIN;
    }

    /** The retry the message thread sent (after {@link News#RETRIED}); the caller now owns its outcome. */
    synchronized PendingAttempt takeRetry() {
        PendingAttempt pending = retried;
        retried = null;
        retrying = false;
        return pending;
    }

    /** The token the release script sent with the hand-off to this owner, or null. */
    synchronized Long handedToken() {
        return handedToken == null ? null : Long.valueOf(handedToken);
    }

    /** Forgets a hand-off found stale (made before a refusal the waiting thread has had since). */
    synchronized void discardHandOff() {
        handedToken = null;
    }

    /**
     * Stops listening and leaves the key's subscription (which lingers if this was its last
     * waiter). If the wait ended without a grant, a retry the message thread sent that no one
     * read is abandoned (whatever it may take is given back).
     */
    void close(boolean granted) {
        PendingAttempt orphan;
        synchronized (this) {
            closed = true;
            grantedAtClose = granted;
            orphan = retried;
            retried = null;
            if (orphan != null) {
                retrying = false;
            }
        }
        if (channels != null) {
            channels.leave(this);
        }
        if (orphan != null && !granted) {
            abandon.accept(orphan);
        }
    }
}
