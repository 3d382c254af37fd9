package dev.mortise.lock.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;

import java.time.Duration;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** One open lease on a {@link Hold}; the object a caller closes. */
final class Lease implements LockLease {

    private final DefaultLockClient client;
    private final Hold hold;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Deque<LockLease> threadStack;

    Lease(DefaultLockClient client, Hold hold) {
        this.client = client;
        this.hold = hold;
        this.threadStack = ThreadLeases.push(this);
    }

    @Override
    public String key() {
        return hold.key();
    }

    @Override
    public String backend() {
        return client.backendName();
    }

    @Override
    public long fencingToken() {
        return hold.grant.fencingToken();
    }

    @Override
    public int holdCount() {
        return hold.openLeases();
    }

    @Override
    public boolean isValid() {
        return !closed.get() && hold.isValidNow();
    }

    @Override
    public Duration remaining() {
        return closed.get() ? Duration.ZERO : hold.remaining();
    }

    @Override
    public void ensureValid() {
        if (closed.get()) {
            throw client.closedLease(hold);
        }
        client.checkExpiry(hold);
        if (!hold.isValidNow()) {
            throw client.invalidLease(hold);
        }
    }

    @Override
    public void extend(Duration lease) {
        if (closed.get()) {
            throw client.closedLease(hold);
        }
        client.extend(hold, lease);
    }

    @Override
    public LockLease onLost(Consumer<LockLostEvent> listener) {
        client.addLostListener(hold, listener);
        return this;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        threadStack.remove(this);
        client.leave(hold);
    }

    boolean clientClosed() {
        return client.isClosed();
    }

    Hold hold() {
        return hold;
    }

    @Override
    public String toString() {
        return "LockLease[key=" + key() + ", backend=" + backend() + ", token=" + fencingToken()
                + (closed.get() ? ", closed" : "") + "]";
    }
}
