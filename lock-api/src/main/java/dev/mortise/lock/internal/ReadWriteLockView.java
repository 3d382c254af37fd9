package dev.mortise.lock.internal;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * {@link ReadWriteLock} over one key: a shared and an exclusive {@link LockView}. Its write lock
 * is the same lock as {@code asLock(key)}; every view of one key in one client is one read-write
 * lock. Read inside write nests (the key stays exclusive until both are unlocked); write inside
 * read is refused with {@link IllegalStateException}.
 */
final class ReadWriteLockView implements ReadWriteLock {

    private final LockView read;
    private final LockView write;

    ReadWriteLockView(LockView read, LockView write) {
        this.read = read;
        this.write = write;
    }

    @Override
    public Lock readLock() {
        return read;
    }

    @Override
    public Lock writeLock() {
        return write;
    }

    @Override
    public String toString() {
        return "ReadWriteLock[" + write + "]";
    }
}
