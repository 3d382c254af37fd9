package dev.mortise.lock.jdbc.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where waiters of one backend sleep until a release of their key is announced. Each key
 * has a generation that every announcement bumps; a waiter reads it before its attempt
 * and sleeps only while it is unchanged, so an announcement between the attempt and the
 * sleep is never lost. Entries live while someone waits on them.
 */
public final class ReleaseSignals {

    private final Map<String, Signal> signals = new HashMap<>(); // guarded by this

    /** A waiter's handle on one key; {@link #close()} it when done waiting. */
    public final class Signal implements AutoCloseable {
        private final String key;
        private int users; // guarded by ReleaseSignals.this
        /** A lock, not a monitor: a virtual thread sleeping here does not pin its carrier on JDK 21-23. */
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition moved = lock.newCondition();
        private long generation; // guarded by lock

        private Signal(String key) {
            this.key = key;
        }

        public long generation() {
            lock.lock();
            try {
                return generation;
            } finally {
                lock.unlock();
            }
        }

        void bump() {
            lock.lock();
            try {
                generation++;
                moved.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Sleeps up to {@code nanos} or until the generation moves past {@code seen}. */
        public void await(long seen, long nanos) throws InterruptedException {
            lock.lock();
            try {
                long deadline = System.nanoTime() + nanos;
                while (generation == seen) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    moved.awaitNanos(left);
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void close() {
            synchronized (ReleaseSignals.this) {
                if (--users == 0) {
                    signals.remove(key);
                }
            }
        }
    }

    public synchronized Signal open(String key) {
        Signal signal = signals.computeIfAbsent(key, Signal::new);
        signal.users++;
        return signal;
    }

    /** A release of {@code key} was announced. */
    public void fire(String key) {
        Signal signal;
        synchronized (this) {
            signal = signals.get(key);
        }
        if (signal != null) {
            signal.bump();
        }
    }

    /** Announcements may have been missed (the listener reconnected): wake every waiter to look again. */
    public void fireAll() {
        Signal[] all;
        synchronized (this) {
            all = signals.values().toArray(new Signal[0]);
        }
        for (Signal signal : all) {
            signal.bump();
        }
    }
}
