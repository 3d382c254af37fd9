package dev.mortise.lock.internal;

import java.util.HashMap;
import java.util.Map;

/**
 * The threads of one client that are inside a backend's acquire, so that {@code close()} can
 * stop them: closing interrupts each of them once and marks it, and the thread clears that
 * interrupt again on its way out (the caller did not ask for it; it gets a clear
 * "client closed" failure instead). Thread-safe.
 */
final class InFlight {

    private final Map<Thread, Boolean> threads = new HashMap<>();
    private boolean closed;

    /** Registers the calling thread; false if the client is already closed. */
    synchronized boolean enter() {
        if (closed) {
            return false;
        }
        threads.put(Thread.currentThread(), Boolean.FALSE);
        return true;
    }

    /** Deregisters the calling thread and clears the interrupt that {@link #closeAll} sent it, if any. */
    void exit() {
        boolean interruptedByClose;
        synchronized (this) {
            interruptedByClose = Boolean.TRUE.equals(threads.remove(Thread.currentThread()));
        }
        if (interruptedByClose) {
            Thread.interrupted();
        }
    }

    /** Refuses new entries and interrupts every thread inside a backend acquire. */
    synchronized void closeAll() {
        closed = true;
        for (Map.Entry<Thread, Boolean> entry : threads.entrySet()) {
            entry.setValue(Boolean.TRUE);
            entry.getKey().interrupt();
        }
    }
}
