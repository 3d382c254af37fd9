package dev.mortise.lock.internal;

import dev.mortise.lock.LockLease;

import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The per-thread stack behind {@link dev.mortise.lock.LockContext}. A lease remembers the
 * stack it was pushed on, so closing it on another thread removes it from the right one.
 */
final class ThreadLeases {

    private static final ThreadLocal<Deque<LockLease>> STACK = ThreadLocal.withInitial(ConcurrentLinkedDeque::new);
    /** The "stack" of leases built on a shared thread: always empty (nothing is pushed on it). */
    private static final Deque<LockLease> NO_THREAD = new ConcurrentLinkedDeque<>();

    private ThreadLeases() {
    }

    /**
     * Puts {@code lease} on the calling thread's stack and answers that stack; on one of Mortise's shared
     * threads ({@link dev.mortise.lock.spi.AsyncWaits}), where an asynchronous acquire builds the leases
     * it hands out, on none (an empty stack), or the thread's next tasks, anyone's, would see it.
     */
    static Deque<LockLease> push(LockLease lease) {
        if (dev.mortise.lock.spi.AsyncWaits.onSharedThread()) {
            return NO_THREAD;
        }
        Deque<LockLease> stack = STACK.get();
        stack.addLast(lease);
        return stack;
    }

    /**
     * Takes {@code lease} off the stack of the thread that acquired it, so that
     * {@link dev.mortise.lock.LockContext} on that thread no longer shows it: for leases whose
     * work continues elsewhere (a {@code CompletionStage}, a {@code Mono}), which would
     * otherwise be seen by unrelated work that the pooled thread runs next. Closing the lease
     * later is unaffected. A no-op for leases of other implementations or already detached.
     */
    public static void detach(LockLease lease) {
        if (lease instanceof Lease own) {
            own.detachFromThread();
        }
    }

    public static Optional<LockLease> current() {
        Deque<LockLease> stack = pruned();
        return Optional.ofNullable(stack.peekLast());
    }

    public static Optional<LockLease> find(String key) {
        Iterator<LockLease> it = pruned().descendingIterator();
        while (it.hasNext()) {
            LockLease lease = it.next();
            if (lease.key().equals(key)) {
                return Optional.of(lease);
            }
        }
        return Optional.empty();
    }

    public static List<LockLease> all() {
        return List.copyOf(new ArrayList<>(pruned()));
    }

    /** The stack without leases whose client was closed (they were never closed one by one). */
    private static Deque<LockLease> pruned() {
        Deque<LockLease> stack = STACK.get();
        stack.removeIf(lease -> lease instanceof Lease l && l.clientClosed());
        return stack;
    }
}
