package dev.mortise.lock.redis.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One waiting request's view of its key's release channel ({@link ReleaseChannels}): it learns of
 * releases, and of a hand-off to its owner (fair mode, or a waiting writer in the default mode),
 * published after it joined. A hand-off to another owner is no release: the lock is held again.
 *
 * <p>When a release arrives while the request sleeps, the message thread sends the retry itself
 * ({@code retry}), and the request wakes once, with the answer: a hand-off costs the release, the
 * message and one acquire round trip, with no wake-up in between. A release that arrives while the
 * request's own attempt is on its way is remembered, and it retries at once. A sleep is a future
 * ({@link #sleep()}) that the message thread, or the reply to its retry, completes: the steps of the
 * wait ({@link WaitingAcquisition}) sleep on it, blocking a caller's thread or holding none. The
 * steps (one at a time), the message thread and the reply thread meet under its lock (a
 * {@link ReentrantLock}, not a monitor: a virtual thread here does not pin its carrier on JDK 21-23).
 */
final class ReleaseWaiter {

    /** What woke the request. */
    enum News {
        /** The release script handed the lock to this owner ({@link #handedToken()}). */
        HANDED,
        /** The message thread sent a retry ({@link #takeRetry()}); it may still be on its way. */
        RETRIED,
        /** The message thread is sending a retry this very moment: sleep again ({@link #sleep()} is renewed). */
        SENDING,
        /** A release came while the request was busy, or the sleep ran out: try again. */
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

    // guarded by lock
    /** Completed on every change the sleeping request may wake for; a fresh one per sleep. */
    private CompletableFuture<Void> wake = new CompletableFuture<>();
    private boolean sleeping;
    /** The request woke while the message thread was sending its retry ({@link News#SENDING}). */
    private boolean awaitingSend;
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
     * @param abandon   gives back whatever a retry may take that the request will never read
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

    /** Completes when the server confirmed the subscription (or failed it): from then on no release is missed. */
    CompletableFuture<Void> subscribed() {
        return subscribed;
    }

    /**
     * After a sleep on {@link #subscribed()} of at most the operation timeout: returns if the server
     * confirmed the subscription.
     *
     * @throws dev.mortise.lock.LockBackendException if it failed, or was not confirmed in time
     */
    void checkSubscribed(ScriptRunner runner) {
        if (!subscribed.isDone() || subscribed.isCompletedExceptionally()) {
            runner.awaitDone(subscribed, runner.timeout(), key, "subscribe to releases of");
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
                    wake.complete(null);
                }
                return; // else handed to another waiter, who holds it now: nothing to try
            }
            if (!sleeping || retrying || handedToken != null) {
                released = true; // the request's own attempt (or a retry) is on its way: try again after it
                wake.complete(null);
                return;
            }
            sleeping = false;
            retrying = true;
        } finally {
            lock.unlock();
        }
        sendRetry();
    }

    /** On the message thread: sends the retry (outside the lock: the reply thread needs it to wake the request). */
    private void sendRetry() {
        PendingAttempt pending;
        try {
            pending = retry.get();
        } catch (RuntimeException e) {
            lock.lock();
            try {
                retrying = false;
                awaitingSend = false;
                released = true; // the request retries and meets the failure itself
                wake.complete(null);
            } finally {
                lock.unlock();
            }
            return;
        }
        boolean orphaned;
        CompletableFuture<Void> woken;
        lock.lock();
        try {
            orphaned = closed;
            if (orphaned) {
                retrying = false;
            } else {
                retried = pending;
            }
            woken = wake;
            if (awaitingSend) {
                awaitingSend = false;
                woken.complete(null); // the request woke meanwhile and waits for the retry to be sent
            }
        } finally {
            lock.unlock();
        }
        if (orphaned) {
            if (!grantedAtClose) {
                abandon.accept(pending);
            }
            return;
        }
        // Wakes the sleep under way when the retry was sent, not a later one (which it would cost an attempt).
        pending.reply().whenComplete((reply, failure) -> woken.complete(null));
    }

    /** The request is about to send an attempt itself: releases seen so far are covered by it. */
    void beforeAttempt() {
        lock.lock();
        try {
            released = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * After a busy attempt: a sleep until a release, a hand-off, or the answer to a retry the message
     * thread sent; complete at once if one of them already came. The caller sleeps on it at most the
     * time it chose, then calls {@link #awake()}.
     */
    CompletableFuture<Void> sleep() {
        lock.lock();
        try {
            wake = new CompletableFuture<>();
            if (handedToken != null || released) {
                wake.complete(null);
            } else {
                sleeping = true;
            }
            return wake;
        } finally {
            lock.unlock();
        }
    }

    /** The sleep ended, woken or timed out (an interrupted or cancelled wait ends instead): what woke it. */
    News awake() {
        lock.lock();
        try {
            sleeping = false;
            awaitingSend = false;
            if (handedToken != null) {
                return News.HANDED;
            }
            if (retrying) {
                if (retried == null) {
                    wake = new CompletableFuture<>(); // completed once the message thread has sent it
                    awaitingSend = true;
                    return News.SENDING;
                }
                return News.RETRIED;
            }
            released = false;
            return News.TRY_AGAIN;
        } finally {
            lock.unlock();
        }
    }

    /** After {@link News#SENDING}: what to sleep on until the retry has been sent. */
    CompletableFuture<Void> sending() {
        lock.lock();
        try {
            return wake;
        } finally {
            lock.unlock();
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
