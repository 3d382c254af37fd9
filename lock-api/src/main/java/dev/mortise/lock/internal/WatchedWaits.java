package dev.mortise.lock.internal;

import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockEvent;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.internal.deadlock.DeadlockDetector;
import dev.mortise.lock.internal.deadlock.WaitWatch;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The blocking acquires that deadlock detection watches: a wait for a lock (not a try, not a
 * semaphore's permits) runs under a {@link WaitWatch}, and an acquire stopped as a deadlock's victim
 * ends with its {@link LockDeadlockException} instead of the interruption that stopped it. Thread-safe.
 */
final class WatchedWaits {

    private final DeadlockDetector detector;
    private final KeyGates gates;
    private final Events events;

    WatchedWaits(DeadlockDetector detector, KeyGates gates, Events events) {
        this.detector = detector;
        this.gates = gates;
        this.events = events;
    }

    /**
     * Runs {@code wait}, the acquire of {@code a} on the calling thread, watched when it waits for a
     * lock; returns its lease, or throws its failure or the deadlock that stopped it.
     */
    LockLease run(Acquisition a, Supplier<LockLease> wait) {
        WaitWatch watch = a.waitTime().isZero() || a.permits() != null ? null
                : detector.watchThisThread(a.key(), a.mode(), () -> holdsOf(a));
        if (watch == null) {
            return wait.get();
        }
        LockLease lease = null;
        RuntimeException failure = null;
        try {
            lease = wait.get();
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            LockDeadlockException victim = detector.end(watch);
            if (victim != null && lease == null) {
                events.fire(LockEvent.Type.DEADLOCK, a.key(), a.mode(), -1, System.nanoTime() - a.start(), victim);
                throw victim;
            }
        }
        if (failure != null) {
            throw failure;
        }
        return lease;
    }

    /**
     * Whether {@code failure} is the interruption a deadlock round caused on this thread (told as
     * DEADLOCK when the acquire ends, not as an ERROR).
     */
    boolean stoppedHere(RuntimeException failure) {
        return failure instanceof LockInterruptedException && detector.stoppedOnThisThread();
    }

    /** The holds the owner of {@code a} has on this client, by holder id (their keys as values). */
    private Map<String, String> holdsOf(Acquisition a) {
        Map<String, String> held = new LinkedHashMap<>();
        for (KeyGates.Gate gate : gates.all()) {
            for (Hold hold : gate.holds()) {
                if (hold.ownedBy(a.ownerThread(), a.ownerId()) && hold.isValidNow()) {
                    held.put(hold.holderId(), gate.key);
                }
            }
        }
        return held;
    }
}
