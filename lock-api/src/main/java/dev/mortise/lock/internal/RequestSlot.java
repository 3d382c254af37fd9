package dev.mortise.lock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The one request at a time that moves a {@link Hold}'s validity (the watchdog's renewal or an
 * {@code extend}), and the wait of an {@code extend} that finds it taken. The wait is on a
 * future, outside the hold's monitor, so a virtual caller does not pin its carrier on JDK 21-23
 * for a renewal's round trip. Every method but {@link #await} is called with the hold's monitor
 * held; completing what {@link #free} and {@link #wakeAll} return is left to the caller, outside it.
 */
final class RequestSlot {

    private boolean taken;
    /** Completed when the slot is freed or the hold ends: what a waiting extend waits on. */
    private CompletableFuture<Void> freed;

    /** Takes the slot if it is free. */
    boolean tryTake() {
        if (taken) {
            return false;
        }
        taken = true;
        return true;
    }

    /** The future completed when the slot is freed (or the hold ends). */
    CompletableFuture<Void> whenFreed() {
        if (freed == null) {
            freed = new CompletableFuture<>();
        }
        return freed;
    }

    /** Frees the slot; returns the future to complete (outside the monitor), or null if no one waits. */
    CompletableFuture<Void> free() {
        taken = false;
        return wakeAll();
    }

    /** The future to complete (outside the monitor) so that every waiter looks again, or null. */
    CompletableFuture<Void> wakeAll() {
        CompletableFuture<Void> waking = freed;
        freed = null;
        return waking;
    }

    /** Waits, without the hold's monitor, for {@code freed} to complete. */
    static void await(CompletableFuture<Void> freed) throws InterruptedException {
        try {
            freed.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("never completed exceptionally", e);
        }
    }

    /** Completes {@code waking} if there is one. */
    static void wake(CompletableFuture<Void> waking) {
        if (waking != null) {
            waking.complete(null);
        }
    }
}
