package dev.mortise.lock.internal;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.function.BiFunction;

/**
 * The client's one table of keys: per key a fair local permit, held from the moment a caller
 * starts talking to the server until its hold ends (contenders of one client wait here
 * instead of all asking the server), and the client's current {@link Hold} on that key.
 * An entry exists only while someone holds or waits, so the table is also the registry of
 * holds that reentrancy, renewal, grant events and {@code heldLocks()} read.
 */
final class KeyGates {

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();
    /** One function object for every enter (a capturing lambda would be allocated per call). */
    private final BiFunction<String, Gate, Gate> join = (key, gate) -> {
        Gate result = gate == null ? new Gate(this, key) : gate;
        result.users++;
        return result;
    };
    private final BiFunction<String, Gate, Gate> quit = (key, gate) -> --gate.users == 0 ? null : gate;

    /**
     * A fair permit for one key plus the hold it protects. Call {@link #leave()} exactly once
     * after a successful enter. Sized to be cheap per held key: the synchronizer is the gate.
     */
    static final class Gate extends AbstractQueuedSynchronizer {
        private final KeyGates owner;
        final String key;
        private int users; // guarded by the map's bin lock (compute)
        /** The client's hold on this key, set once granted, cleared when it ends locally. */
        private volatile Hold hold;
        // Grant events that arrive while the permit holder's request is still on its way back
        // (guarded by this): the backend may report a session suspended or lost before the hold exists.
        private String pendingOwner;
        private boolean earlySuspended;
        private boolean earlyLost;
        private Throwable earlyLostCause;

        private Gate(KeyGates owner, String key) {
            this.owner = owner;
            this.key = key;
        }

        @Override
        protected boolean tryAcquire(int ignored) {
            return !hasQueuedPredecessors() && compareAndSetState(0, 1);
        }

        @Override
        protected boolean tryRelease(int ignored) {
            setState(0);
            return true;
        }

        boolean tryTake() {
            return compareAndSetState(0, 1);
        }

        Hold hold() {
            return hold;
        }

        /** Called by the permit holder before it asks the server for {@code requestOwner}. */
        synchronized void expect(String requestOwner) {
            pendingOwner = requestOwner;
            earlySuspended = false;
            earlyLost = false;
            earlyLostCause = null;
        }

        /**
         * Publishes the granted hold and hands back what the backend reported for it before it
         * was published: {@link EarlyState#LOST}, {@link EarlyState#SUSPENDED} or {@link EarlyState#NONE}.
         */
        synchronized EarlyState publish(Hold granted) {
            hold = granted;
            pendingOwner = null;
            return earlyLost ? EarlyState.LOST : earlySuspended ? EarlyState.SUSPENDED : EarlyState.NONE;
        }

        synchronized Throwable earlyLostCause() {
            return earlyLostCause;
        }

        /**
         * The hold of {@code grantOwner} if it is published; otherwise records the event for the
         * request still in flight (if it is that owner's) and returns null.
         */
        synchronized Hold route(String grantOwner, EarlyState event, Throwable cause) {
            Hold current = hold;
            if (current != null && current.grant.owner().equals(grantOwner)) {
                return current;
            }
            if (grantOwner.equals(pendingOwner)) {
                switch (event) {
                    case SUSPENDED -> earlySuspended = true;
                    case NONE -> earlySuspended = false;
                    case LOST -> {
                        earlyLost = true;
                        earlyLostCause = cause;
                    }
                }
            }
            return null;
        }

        /**
         * Ends the local hold {@code ended} (if it is the current one; null after a request that
         * produced none) and gives up the permit.
         */
        void leave(Hold ended) {
            synchronized (this) {
                if (hold == ended) {
                    hold = null;
                }
                pendingOwner = null;
            }
            release(1);
            owner.unregister(this);
        }

    }

    /** What the backend reported for a grant before its hold was published. */
    enum EarlyState { NONE, SUSPENDED, LOST }

    /**
     * Takes the permit for {@code key}, waiting up to {@code waitNanos}.
     *
     * @return the gate, or {@code null} if the wait ran out
     */
    Gate enter(String key, long waitNanos) throws InterruptedException {
        Gate gate = gates.compute(key, join);
        boolean entered = false;
        try {
            // A zero-wait try takes a free permit even when queued waiters are about to be woken,
            // as Semaphore.tryAcquire() does; a timed wait queues fairly.
            entered = waitNanos <= 0 ? gate.tryTake() : gate.tryAcquireNanos(1, waitNanos);
            return entered ? gate : null;
        } finally {
            if (!entered) {
                unregister(gate);
            }
        }
    }

    /** The gate of {@code key}, or null if no one holds or waits for it. */
    Gate get(String key) {
        return gates.get(key);
    }

    /** The current gates (weakly consistent). */
    Collection<Gate> all() {
        return gates.values();
    }

    private void unregister(Gate gate) {
        // A gate with users stays mapped, so the entry for its key is this gate.
        gates.computeIfPresent(gate.key, quit);
    }

    int size() {
        return gates.size();
    }
}
