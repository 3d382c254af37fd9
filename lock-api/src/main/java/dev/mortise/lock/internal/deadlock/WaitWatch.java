package dev.mortise.lock.internal.deadlock;

import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockMode;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;

/**
 * One wait that deadlock detection watches, from the start of the acquire until {@link #finish()}:
 * its record, the holds its owner has (holder id → key), and whether a round made it a victim.
 * Thread-safe: the state moves WAITING → VICTIM → DONE or WAITING → DONE under this object's
 * monitor, so a wait that finished is never stopped, and one stopped is told so when it finishes.
 */
public final class WaitWatch {

    private enum State { WAITING, VICTIM, DONE }

    private final String key;
    private final LockMode mode;
    private final long sinceMillis = System.currentTimeMillis();
    final long startNanos = System.nanoTime();
    private final java.util.function.Supplier<Map<String, String>> holds;
    private final java.util.function.UnaryOperator<String> holderIdOf;
    /** Set by the first round (under {@link #publishing}): nothing is computed before the threshold. */
    volatile WaitRecordText record;
    volatile Map<String, String> heldKeys = Map.of();
    /** Held while a round publishes and while the end removes, so no publish lands after the removal. */
    final Object publishing = new Object();
    private final Runnable stop;
    private State state = State.WAITING; // guarded by this
    private LockDeadlockException victimOf; // guarded by this
    /** When the last publish was sent ({@link System#nanoTime()}), answered or not; 0 if never. */
    volatile long sentAtNanos;
    /** When the last publish's answer came ({@link System#nanoTime()}), and the TTL it applied; 0 if never. */
    volatile long publishedAtNanos;
    volatile Duration appliedTtl = Duration.ZERO;
    volatile ScheduledFuture<?> rounds;

    WaitWatch(String key, LockMode mode, java.util.function.Supplier<Map<String, String>> holds, Runnable stop,
              java.util.function.UnaryOperator<String> holderIdOf) {
        this.holderIdOf = holderIdOf;
        this.key = key;
        this.mode = mode;
        this.holds = holds;
        this.stop = stop;
    }

    /**
     * At the first round: the owner's holds now (holder id → key), and the record of this wait.
     *
     * @return false if nothing is to be published: a shared wait whose owner holds nothing of the
     *         client (it is in no cycle and holds no reader back)
     */
    boolean resolve() {
        if (record == null) {
            heldKeys = Map.copyOf(holds.get());
            record = new WaitRecordText(java.util.UUID.randomUUID().toString().replace("-", ""), mode, sinceMillis,
                    key);
        }
        return !heldKeys.isEmpty() || mode == LockMode.EXCLUSIVE;
    }

    /** Whether this wait can close a cycle (its owner holds something), so its rounds search. */
    boolean searches() {
        return !heldKeys.isEmpty();
    }

    /** The holder ids of the owner's holds. */
    List<String> holderIds() {
        return List.copyOf(heldKeys.keySet());
    }

    /**
     * Where this wait's record is published: under each hold of its owner and, for an exclusive wait,
     * under its key's writer marker too (readers queued behind it wait for the key's holders).
     */
    List<String> entries() {
        List<String> entries = new java.util.ArrayList<>(heldKeys.keySet());
        if (mode == LockMode.EXCLUSIVE) {
            entries.add(WriterMarkers.of(key, holderIdOf));
        }
        return entries;
    }

    String key() {
        return key;
    }

    LockMode mode() {
        return mode;
    }

    synchronized boolean waiting() {
        return state == State.WAITING;
    }

    /** Ends the wait as a deadlock's victim, if it still waits; true if it did. */
    synchronized boolean stopAsVictim(LockDeadlockException exception) {
        if (state != State.WAITING) {
            return false;
        }
        state = State.VICTIM;
        victimOf = exception;
        stop.run();
        return true;
    }

    /** Marks the wait over; the exception it was stopped with, or null if no round stopped it. */
    synchronized LockDeadlockException finish() {
        State was = state;
        state = State.DONE;
        return was == State.VICTIM ? victimOf : null;
    }

    /** The exception this wait was stopped with while it has not finished, else null. */
    synchronized LockDeadlockException stoppedBy() {
        return state == State.VICTIM ? victimOf : null;
    }
}
