package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;

import java.time.Duration;

/**
 * One client of the property suite: a {@link LockClient} over a {@link FaultInjectingBackend},
 * with the default lease it was built with and the moments its {@code close()} started
 * and returned (so the model can tell a lease handed out after its client closed).
 */
final class PropertyClient {

    final int id;
    final int slot;
    final LockClient client;
    final FaultInjectingBackend faults;
    final Duration defaultLease;
    /** Chance that the client's {@link dev.mortise.lock.LockListener} blocks on an event. */
    final double listenerBlockChance;

    private final java.util.ArrayDeque<String> faultLog = new java.util.ArrayDeque<>(); // guarded by itself
    private volatile long closeStartedNanos;
    private volatile long closeReturnedNanos;

    PropertyClient(int id, int slot, LockClient client, FaultInjectingBackend faults, Duration defaultLease,
                   double listenerBlockChance) {
        this.id = id;
        this.slot = slot;
        this.client = client;
        this.faults = faults;
        this.defaultLease = defaultLease;
        this.listenerBlockChance = listenerBlockChance;
    }

    /** Remembers a fault injected into this client (the last six), for violation reports. */
    void noteFault(String what) {
        synchronized (faultLog) {
            if (faultLog.size() == 6) {
                faultLog.removeFirst();
            }
            faultLog.addLast(what);
        }
    }

    String faults() {
        synchronized (faultLog) {
            return String.join("; ", faultLog);
        }
    }

    /** Closes the client once; later calls return at once. */
    synchronized void close() {
        if (closeStartedNanos != 0) {
            return;
        }
        closeStartedNanos = System.nanoTime();
        try {
            client.close();
        } finally {
            faults.heal();
            closeReturnedNanos = System.nanoTime();
        }
    }

    boolean closeStarted() {
        return closeStartedNanos != 0;
    }

    /** {@link System#nanoTime()} when {@code close()} returned, or 0. */
    long closeReturnedNanos() {
        return closeReturnedNanos;
    }

    @Override
    public String toString() {
        return "client#" + id + "(slot " + slot + ", default lease " + defaultLease.toMillis() + " ms"
                + (closeStarted() ? ", closed" : "") + ")";
    }
}
