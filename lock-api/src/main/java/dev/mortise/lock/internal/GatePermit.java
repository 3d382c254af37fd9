package dev.mortise.lock.internal;

import dev.mortise.lock.LockMode;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The fair read-write permit of one key's {@link KeyGates.Gate}: 0 when free, -1 while an
 * exclusive caller has it, and the number of shared callers otherwise. Callers that cannot have
 * it yet queue as {@link Entry}s, futures completed when the permit is theirs, so a waiter is a
 * blocked thread ({@link KeyGates#enter}) or no thread at all ({@link KeyGates#enterAsync}).
 * Fair with writer preference: once an exclusive caller queues, new shared callers queue behind
 * it. Guarded by this object's monitor, held only for a few field writes, never across a wait
 * (futures are completed outside it).
 */
abstract class GatePermit {

    /** 0 free, -1 exclusive, n shared (guarded by this). */
    private int permit;
    /** Callers waiting for the permit, in arrival order (guarded by this; created lazily). */
    private ArrayDeque<Entry> queue;
    private int exclusiveQueued; // guarded by this

    /**
     * A zero-wait try: takes a free permit even when queued callers are about to be admitted,
     * as {@code Semaphore.tryAcquire()} does — except that a shared try never passes a
     * waiting exclusive caller.
     */
    synchronized boolean tryTake(LockMode mode) {
        if (mode == LockMode.EXCLUSIVE) {
            if (permit != 0) {
                return false;
            }
            permit = -1;
            return true;
        }
        if (exclusiveQueued > 0 || permit < 0) {
            return false;
        }
        permit++;
        return true;
    }

    /**
     * Takes the permit if it is free for {@code mode} and no one queues ahead (fair), else
     * queues: the answer is completed (with this gate) when the permit is the caller's.
     */
    Entry request(LockMode mode) {
        Entry entry = new Entry(this, mode);
        synchronized (this) {
            if ((queue == null || queue.isEmpty()) && fits(mode)) {
                take(mode);
                entry.admitted = true;
            } else {
                if (queue == null) {
                    queue = new ArrayDeque<>(2);
                }
                queue.addLast(entry);
                if (mode == LockMode.EXCLUSIVE) {
                    exclusiveQueued++;
                }
            }
        }
        if (entry.admitted) {
            entry.complete(self());
        }
        return entry;
    }

    /**
     * Takes a queued caller out of the queue (its wait ran out, it was interrupted or
     * cancelled). False if it was admitted already: then it has the permit and must leave.
     */
    boolean withdraw(Entry entry) {
        List<Entry> admitted;
        synchronized (this) {
            if (entry.admitted || queue == null || !queue.remove(entry)) {
                return false;
            }
            if (entry.mode == LockMode.EXCLUSIVE) {
                exclusiveQueued--;
            }
            admitted = admitQueued(); // readers behind a withdrawn writer may go now
        }
        entry.cancel(false);
        completeAll(admitted);
        return true;
    }

    private boolean fits(LockMode mode) {
        return mode == LockMode.EXCLUSIVE ? permit == 0 : permit >= 0;
    }

    private void take(LockMode mode) {
        permit = mode == LockMode.EXCLUSIVE ? -1 : permit + 1;
    }

    /** Admits callers from the head of the queue while they fit (guarded by this). */
    private List<Entry> admitQueued() {
        List<Entry> admitted = null;
        while (queue != null && !queue.isEmpty() && fits(queue.peekFirst().mode)) {
            Entry next = queue.pollFirst();
            take(next.mode);
            next.admitted = true;
            if (next.mode == LockMode.EXCLUSIVE) {
                exclusiveQueued--;
            }
            if (admitted == null) {
                admitted = new ArrayList<>(2);
            }
            admitted.add(next);
        }
        return admitted;
    }

    private void completeAll(List<Entry> admitted) {
        if (admitted != null) {
            for (Entry entry : admitted) {
                entry.complete(self());
            }
        }
    }

    void giveBack(LockMode mode) {
        List<Entry> admitted;
        synchronized (this) {
            permit = mode == LockMode.EXCLUSIVE ? 0 : permit - 1;
            admitted = admitQueued();
        }
        completeAll(admitted);
    }

    /** The gate this permit belongs to, which admitted callers receive. */
    abstract KeyGates.Gate self();

    /**
     * One caller's place in a gate's queue: completed with the gate when the permit is the
     * caller's (on the thread that gave the permit up; an async caller moves on to its own
     * executor). Withdrawn with {@link GatePermit#withdraw}, never cancelled directly.
     */
    static final class Entry extends CompletableFuture<KeyGates.Gate> {
        final GatePermit gate;
        final LockMode mode;
        private boolean admitted; // guarded by the gate

        private Entry(GatePermit gate, LockMode mode) {
            this.gate = gate;
            this.mode = mode;
        }
    }
}
