package dev.mortise.lock.jdbc.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where waiters of one backend sleep until a release of their key is announced. Each key
 * has a generation that every announcement bumps; a waiter reads it before its attempt
 * and sleeps only while it is unchanged (on a future that the next announcement completes),
 * so an announcement between the attempt and the sleep is never lost. Entries live while
 * someone waits on them.
 */
public final class ReleaseSignals {

    private final Map<String, Signal> signals = new HashMap<>(); // guarded by this

    /**
     * A waiter's handle on one key; {@link #close()} it when done waiting. A waiter sleeps on a
     * future of {@link #after}, made for that one sleep, and {@link #forget}s it when it wakes by
     * time, so futures never pile up on a key nobody releases.
     */
    public final class Signal implements AutoCloseable {
        private final String key;
        private int users; // guarded by ReleaseSignals.this
        /** A lock, not a monitor: a virtual thread taking it never pins its carrier on JDK 21-23. */
        private final ReentrantLock lock = new ReentrantLock();
        private long generation; // guarded by lock
        /** The sleeps of this key's waiters, completed by the next announcement. Guarded by lock. */
        private final Set<CompletableFuture<Void>> sleepers = new HashSet<>();

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
            List<CompletableFuture<Void>> woken;
            lock.lock();
            try {
                generation++;
                woken = new ArrayList<>(sleepers);
                sleepers.clear();
            } finally {
                lock.unlock();
            }
            // completed outside the lock: what a completion runs (a driver's wake-up) never runs under it
            woken.forEach(sleeper -> sleeper.complete(null));
        }

        /**
         * A new future, completed once the generation moves past {@code seen}: at once if it already
         * has, else at the next announcement. Thread-safe.
         */
        public CompletableFuture<Void> after(long seen) {
            lock.lock();
            try {
                if (generation != seen) {
                    return CompletableFuture.completedFuture(null);
                }
                CompletableFuture<Void> sleeper = new CompletableFuture<>();
                sleepers.add(sleeper);
                return sleeper;
            } finally {
                lock.unlock();
            }
        }

        /** Drops a future of {@link #after} that nobody sleeps on any more (null: nothing to drop). */
        public void forget(CompletableFuture<?> sleeper) {
            if (sleeper == null) {
                return;
            }
            lock.lock();
            try {
                sleepers.remove(sleeper);
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
