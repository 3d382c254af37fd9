package dev.mortise.lock.spring;

import dev.mortise.lock.LockMode;

import java.util.Locale;

/**
 * How an annotated method uses what its lock protects ({@link DistributedLock#mode()}).
 */
public enum LockAccess {

    /**
     * Reads: a shared lock ({@link LockMode#SHARED}). Readers of a key run together; no writer
     * runs while one does. Needs a backend that supports shared locks
     * ({@code LockBackend.supportsSharedMode()}); the lock client refuses shared locks on one that
     * does not, naming it.
     */
    READ,

    /** Writes: an exclusive lock ({@link LockMode#EXCLUSIVE}), the default. */
    WRITE;

    /** The lock mode this access takes. */
    public LockMode lockMode() {
        return this == READ ? LockMode.SHARED : LockMode.EXCLUSIVE;
    }

    /** The access a hold of {@code mode} gives: READ for shared, WRITE for exclusive (and {@code null}). */
    public static LockAccess of(LockMode mode) {
        return mode == LockMode.SHARED ? READ : WRITE;
    }

    /** The metrics tag value: {@code read} or {@code write}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
