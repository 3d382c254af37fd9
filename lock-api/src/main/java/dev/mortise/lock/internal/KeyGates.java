package dev.mortise.lock.internal;

import dev.mortise.lock.LockMode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/**
 * The client's one table of keys: per key a fair local read-write permit, held from the moment
 * a caller starts talking to the server until its hold ends (contenders of one client wait here
 * instead of all asking the server), and the client's current {@link Hold}s on that key: one
 * exclusive hold, or any number of shared ones (each caller with its own server hold). An entry
 * exists only while someone holds or waits, so the table is also the registry of holds that
 * reentrancy, renewal, grant events and {@code heldLocks()} read.
 *
 * <p>The permit is fair with writer preference: once an exclusive caller waits in the gate, new
 * shared callers queue behind it, so a steady stream of this client's readers never starves its
 * writer (the backend does the same across clients).
 */
final class KeyGates {

    private static final Hold[] NONE = new Hold[0];

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();
    /** One function object for every enter (a capturing lambda would be allocated per call). */
    private final BiFunction<String, Gate, Gate> join = (key, gate) -> {
        Gate result = gate == null ? new Gate(this, key) : gate;
        result.users++;
        return result;
    };
    private final BiFunction<String, Gate, Gate> quit = (key, gate) -> --gate.users == 0 ? null : gate;

    /**
     * A fair read-write permit for one key ({@link GatePermit}) plus the holds it protects. Call
     * {@link #leave} exactly once after a successful enter, with the same mode. Sized to be cheap
     * per held key.
     */
    static final class Gate extends GatePermit {
        private final KeyGates owner;
        final String key;
        private int users; // guarded by the map's bin lock (compute)
        /** The client's holds on this key (copy on write, guarded by this for writes). */
        private volatile Hold[] holds = NONE;
        /**
         * Requests on their way to the server (guarded by this): usually at most one, kept in a
         * field; more (shared callers asking at once) in a list created lazily.
         */
        private Pending pendingOne;
        private List<Pending> pendingMore;
        private Gate(KeyGates owner, String key) {
            this.owner = owner;
            this.key = key;
        }

        @Override
        Gate self() {
            return this;
        }

        // ---- the holds ----------------------------------------------------------------

        /** The published holds (do not modify): none, one exclusive, or any number of shared. */
        Hold[] holds() {
            return holds;
        }

        /** The published hold of this owner context (at most one per owner), or null. */
        Hold holdOf(Thread thread, String id) {
            for (Hold hold : holds) {
                if (hold.ownedBy(thread, id)) {
                    return hold;
                }
            }
            return null;
        }

        /**
         * Called by a permit holder before it asks the server for {@code requestOwner}: from now
         * on the backend's events for that owner are kept until the hold is published. Replaces
         * {@code previous} (a request of the same caller that produced no hold), if any.
         */
        synchronized Pending expect(Pending previous, String requestOwner) {
            if (previous != null) {
                forget(previous);
            }
            Pending next = new Pending(requestOwner);
            if (pendingOne == null) {
                pendingOne = next;
            } else {
                if (pendingMore == null) {
                    pendingMore = new ArrayList<>(2);
                }
                pendingMore.add(next);
            }
            return next;
        }

        /** Drops a request from the pending ones (guarded by this). */
        private void forget(Pending request) {
            if (pendingOne == request) {
                pendingOne = null;
            } else if (pendingMore != null) {
                pendingMore.remove(request);
            }
        }

        /**
         * Publishes the granted hold and hands back what the backend reported for it before it
         * was published: {@link EarlyState#LOST}, {@link EarlyState#SUSPENDED} or {@link EarlyState#NONE}.
         */
        synchronized EarlyState publish(Pending request, Hold granted) {
            Hold[] now = holds;
            Hold[] next = java.util.Arrays.copyOf(now, now.length + 1);
            next[now.length] = granted;
            holds = next;
            forget(request);
            return request.lost ? EarlyState.LOST : request.suspended ? EarlyState.SUSPENDED : EarlyState.NONE;
        }

        /**
         * The hold of {@code grantOwner} if it is published; otherwise records the event for the
         * request still in flight (if it is that owner's) and returns null.
         */
        synchronized Hold route(String grantOwner, EarlyState event, Throwable cause) {
            for (Hold hold : holds) {
                if (hold.grant.owner().equals(grantOwner)) {
                    return hold;
                }
            }
            if (pendingOne != null && pendingOne.owner.equals(grantOwner)) {
                pendingOne.record(event, cause);
            }
            if (pendingMore != null) {
                for (Pending request : pendingMore) {
                    if (request.owner.equals(grantOwner)) {
                        request.record(event, cause);
                    }
                }
            }
            return null;
        }

        /**
         * Ends the local hold {@code ended} (null after a request that produced none), forgets the
         * request {@code request} (null if none) and gives up the permit taken in {@code mode}.
         */
        void leave(LockMode mode, Pending request, Hold ended) {
            synchronized (this) {
                if (ended != null) {
                    removeHold(ended);
                }
                if (request != null) {
                    forget(request);
                }
            }
            giveBack(mode);
            owner.unregister(this);
        }

        private void removeHold(Hold ended) {
            Hold[] now = holds;
            for (int i = 0; i < now.length; i++) {
                if (now[i] == ended) {
                    if (now.length == 1) {
                        holds = NONE;
                    } else {
                        Hold[] next = new Hold[now.length - 1];
                        System.arraycopy(now, 0, next, 0, i);
                        System.arraycopy(now, i + 1, next, i, now.length - i - 1);
                        holds = next;
                    }
                    return;
                }
            }
        }
    }

    /** A request on its way to the server, and what the backend reported for its grant meanwhile. */
    static final class Pending {
        final String owner;
        private boolean suspended; // guarded by the gate
        private boolean lost;
        private Throwable lostCause;

        private Pending(String owner) {
            this.owner = owner;
        }

        private void record(EarlyState event, Throwable cause) {
            switch (event) {
                case SUSPENDED -> suspended = true;
                case NONE -> suspended = false;
                case LOST -> {
                    lost = true;
                    lostCause = cause;
                }
            }
        }
    }

    /** What the backend reported for a grant before its hold was published. */
    enum EarlyState { NONE, SUSPENDED, LOST }

    /**
     * Takes the permit for {@code key} in {@code mode}, waiting up to {@code waitNanos}: a
     * blocking wait on the gate's non-blocking {@link #enterAsync} answer (one gate, one queue).
     * Interrupted, it leaves the queue (or the permit, if admitted meanwhile) before it throws.
     *
     * @return the gate, or {@code null} if the wait ran out
     */
    Gate enter(String key, LockMode mode, long waitNanos) throws InterruptedException {
        if (waitNanos <= 0) {
            Gate gate = gates.compute(key, join);
            if (gate.tryTake(mode)) {
                return gate;
            }
            unregister(gate);
            return null;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        GatePermit.Entry entry = enterAsync(key, mode);
        Gate gate = entry.getNow(null);
        if (gate != null) {
            return gate;
        }
        try {
            return entry.get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return withdraw(entry) ? null : entry.join(); // admitted as the wait ran out: take it
        } catch (InterruptedException e) {
            if (!withdraw(entry)) {
                Gate admitted = entry.join();
                admitted.leave(mode, null, null);
            }
            throw e;
        } catch (ExecutionException e) {
            throw new IllegalStateException("a gate entry never fails", e);
        }
    }

    /**
     * Asks for the permit for {@code key} in {@code mode} without waiting for it: the answer is
     * completed with the gate when the permit is the caller's (at once if it is free and no one
     * queues), in arrival order with writer preference. A caller that stops waiting calls
     * {@link #withdraw}; if that says false the permit is the caller's and it must leave the gate.
     */
    GatePermit.Entry enterAsync(String key, LockMode mode) {
        Gate gate = gates.compute(key, join);
        return gate.request(mode);
    }

    /**
     * Takes {@code entry} out of its gate's queue and unregisters the caller from the gate.
     *
     * @return true if withdrawn; false if it was admitted already (the caller has the permit and
     *         must {@link Gate#leave} it)
     */
    boolean withdraw(GatePermit.Entry entry) {
        if (entry.gate.withdraw(entry)) {
            unregister(entry.gate.self());
            return true;
        }
        return false;
    }

    /**
     * Takes the permit for {@code key} in {@code mode} without waiting, and only if no one in this
     * client holds or waits for the key (it has no gate): the entry of a multi-key fast path, which
     * must neither queue behind nor pass anyone, nor miss a hold of the caller's owner to nest in.
     *
     * @return the new gate, with its permit taken; or {@code null} if the key was in use (nothing changed)
     */
    Gate enterIdle(String key, LockMode mode) {
        Gate fresh = new Gate(this, key);
        fresh.users = 1; // published by the map, whose bin lock guards users from here on
        if (gates.putIfAbsent(key, fresh) != null) {
            return null;
        }
        if (fresh.tryTake(mode)) {
            return fresh;
        }
        unregister(fresh); // someone joined the new gate and took its permit first
        return null;
    }

    /** The cause the backend gave for a loss reported before {@code request}'s hold was published. */
    static Throwable earlyLostCause(Gate gate, Pending request) {
        synchronized (gate) {
            return request.lostCause;
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
