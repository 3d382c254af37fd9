package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.MultiLease;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The {@link MultiLease} of a multi-key {@code @DistributedLock} call as the one lease the rest
 * of the advice handles (busy policy, onLost, transactions, holdAtLeast): valid while every part
 * is, lost once when one is, closed part by part. Its {@link #key()} is the keys as text, for
 * messages. It has no single fencing token: the advice refuses {@code @FencingToken} with a
 * multi-key key before acquiring, checks a {@code fence} per part ({@link CallFence}), and code
 * inside the method reads each part's token from {@code LockContext.find(key)}.
 */
final class MultiKeyLease implements LockLease {

    private final MultiLease multi;

    MultiKeyLease(MultiLease multi) {
        this.multi = multi;
    }

    MultiLease multi() {
        return multi;
    }

    @Override
    public String key() {
        return multi.keys().toString();
    }

    @Override
    public String backend() {
        return multi.backend();
    }

    @Override
    public long fencingToken() {
        throw new IllegalStateException("The multi-key lock " + key() + " on backend '" + backend() + "' has one "
                + "fencing token per key, not one for all: read the token of the key that guards a write from "
                + "LockContext.find(key) or MultiLease.fencingToken(key)");
    }

    /** Refused as {@link #fencingToken()} is: each key is its own hold with its own id ({@code MultiLease.holderId(key)}). */
    @Override
    public String holderId() {
        throw new IllegalStateException("The multi-key lock " + key() + " on backend '" + backend() + "' has one "
                + "holder id per key, not one for all: read the id of a key's hold from MultiLease.holderId(key) or "
                + "LockContext.find(key)");
    }

    @Override
    public int holdCount() {
        return multi.parts().stream().mapToInt(LockLease::holdCount).min().orElse(0);
    }

    @Override
    public boolean isValid() {
        return multi.isValid();
    }

    @Override
    public Duration remaining() {
        return multi.remaining();
    }

    @Override
    public void ensureValid() {
        multi.ensureValid();
    }

    @Override
    public void extend(Duration lease) {
        multi.extend(lease);
    }

    @Override
    public LockLease onLost(Consumer<LockLostEvent> listener) {
        multi.onLost(listener);
        return this;
    }

    @Override
    public void close() {
        multi.close();
    }

    @Override
    public void closeLingering(Duration linger) {
        multi.closeLingering(linger);
    }

    @Override
    public String toString() {
        return multi.toString();
    }
}
