package dev.mortise.lock.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The local queue: one fair permit per key, held from the moment a caller starts talking
 * to the server until its hold ends. Contenders of one client wait here instead of all
 * asking the server. Entries exist only while someone holds or waits.
 */
final class KeyGates {

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();

    /** A permit for one key; {@link #leave()} exactly once after a successful enter. */
    final class Gate {
        private final String key;
        private final Semaphore permit = new Semaphore(1, true);
        private int users; // guarded by the map's bin lock (compute)

        private Gate(String key) {
            this.key = key;
        }

        void leave() {
            permit.release();
            unregister(this);
        }
    }

    /**
     * Takes the permit for {@code key}, waiting up to {@code waitNanos}.
     *
     * @return the gate, or {@code null} if the wait ran out
     */
    Gate enter(String key, long waitNanos) throws InterruptedException {
        Gate gate = gates.compute(key, (k, g) -> {
            Gate result = g == null ? new Gate(k) : g;
            result.users++;
            return result;
        });
        boolean entered = false;
        try {
            entered = waitNanos <= 0 ? gate.permit.tryAcquire() : gate.permit.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
            return entered ? gate : null;
        } finally {
            if (!entered) {
                unregister(gate);
            }
        }
    }

    private void unregister(Gate gate) {
        gates.computeIfPresent(gate.key, (k, g) -> g == gate && --g.users == 0 ? null : g);
    }

    int size() {
        return gates.size();
    }
}
