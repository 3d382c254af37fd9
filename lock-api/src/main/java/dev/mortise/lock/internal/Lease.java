package dev.mortise.lock.internal;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.internal.group.GroupLease;

import java.time.Duration;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Consumer;

/** One open lease on a {@link Hold}; the object a caller closes. */
final class Lease implements LockLease, GroupLease.Part {

    private final DefaultLockClient client;
    private final Hold hold;
    private static final AtomicIntegerFieldUpdater<Lease> CLOSED =
            AtomicIntegerFieldUpdater.newUpdater(Lease.class, "closed");

    private volatile int closed; // 0 open, 1 closed (a field, not an AtomicBoolean: one object less per lease)
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
    public String holderId() {
        return hold.holderId();
    }

    @Override
    public LockMode mode() {
        return hold.mode;
    }

    @Override
    public int holdCount() {
        return hold.openLeases();
    }

    @Override
    public boolean isValid() {
        return closed == 0 && hold.isValidNow();
    }

    @Override
    public Duration remaining() {
        return closed != 0 ? Duration.ZERO : hold.remaining();
    }

    @Override
    public void ensureValid() {
        if (closed != 0) {
            throw client.actions().closedLease(hold);
        }
        client.actions().checkExpiry(hold);
        if (!hold.isValidNow()) {
            throw client.actions().invalidLease(hold);
        }
    }

    @Override
    public void extend(Duration lease) {
        if (closed != 0) {
            throw client.actions().closedLease(hold);
        }
        client.actions().extend(hold, lease);
    }

    @Override
    public LockLease onLost(Consumer<LockLostEvent> listener) {
        client.actions().addLostListener(hold, listener);
        return this;
    }

    @Override
    public void close() {
        closeLingering(Duration.ZERO);
    }

    @Override
    public void closeLingering(Duration linger) {
        if (markClosed(linger)) {
            client.actions().leave(hold, linger); // no closure on the release path
        }
    }

    @Override
    public Runnable closeLocally(Duration linger) {
        if (!markClosed(linger)) {
            return null;
        }
        Hold.Closing closing = client.actions().beginLeave(hold);
        return () -> client.actions().finishLeave(hold, closing, linger);
    }

    /** Closes this lease object once: true the first time. */
    private boolean markClosed(Duration linger) {
        if (linger == null) {
            throw new IllegalArgumentException("linger must not be null (lock '" + key() + "', backend '"
                    + backend() + "'); pass Duration.ZERO to release at once");
        }
        if (!CLOSED.compareAndSet(this, 0, 1)) {
            return false;
        }
        // Leases close in reverse order as a rule, so search from the top of the stack.
        threadStack.removeLastOccurrence(this);
        return true;
    }

    void detachFromThread() {
        threadStack.removeLastOccurrence(this);
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
                + (hold.mode == LockMode.SHARED ? ", shared" : "") + (closed != 0 ? ", closed" : "") + "]";
    }
}
