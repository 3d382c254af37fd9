package dev.mortise.lock.internal;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The threads of one client that are inside a backend's acquire, so that {@code close()} can
 * stop them: closing interrupts each of them once and marks it, and the thread clears that
 * interrupt again on its way out (the caller did not ask for it; it gets a clear
 * "client closed" failure instead). Thread-safe and without a lock shared by all acquiring
 * threads: every acquire enters and exits once, so a client-wide monitor here was where
 * concurrent acquires of different keys queued behind each other.
 */
final class InFlight {

    /** Thread inside an acquire → whether {@link #closeAll} interrupted it. */
    private final ConcurrentHashMap<Thread, Boolean> threads = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Registers the calling thread; false if the client is already closed. */
    boolean enter() {
        if (closed) {
            return false;
        }
        threads.put(Thread.currentThread(), Boolean.FALSE);
        // Registered before looking at closed again, and closeAll sets closed before it looks at
        // the threads: a thread that missed the close is found by it, and is interrupted then.
        if (closed) {
            exit();
            return false;
        }
        return true;
    }

    /** Deregisters the calling thread and clears the interrupt that {@link #closeAll} sent it, if any. */
    void exit() {
        // closeAll interrupts under the entry's bin lock, which remove also takes: an interrupt
        // sent for this entry has arrived by the time remove returns TRUE, so it is cleared here
        // and never leaks into the caller's later work.
        if (Boolean.TRUE.equals(threads.remove(Thread.currentThread()))) {
            Thread.interrupted();
        }
    }

    /** Refuses new entries and interrupts every thread inside a backend acquire. */
    void closeAll() {
        closed = true;
        for (Thread thread : threads.keySet()) {
            threads.computeIfPresent(thread, (t, interrupted) -> {
                if (!interrupted) {
                    t.interrupt();
                }
                return Boolean.TRUE;
            });
        }
    }
}
