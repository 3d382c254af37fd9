package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;

/**
 * The annotated locks whose methods are running on this thread, innermost last. Lets a
 * nested annotated call re-enter a lock held under an explicit owner, and lets a
 * transaction begun inside a locked method check the leases before it commits.
 */
public final class ActiveLocks {

    /** Null on a thread running no annotated call: looking up allocates nothing, the pool's threads keep nothing. */
    private static final ThreadLocal<Deque<Entry>> STACK = new ThreadLocal<>();

    private ActiveLocks() {
    }

    /**
     * One running annotated call (one entry per key of a multi-key lock, {@code lease} its
     * part). {@code owner} is {@code null} for the thread; {@code fence} is the call's fence,
     * bound to the call's whole lease, or {@code null} for none.
     */
    record Entry(LockClient client, String key, String owner, LockLease lease, LockOperation operation,
                 CallFence fence) {
    }

    /** The innermost running call of {@code operation} on this thread, or {@code null}. */
    static Entry innermost(LockOperation operation) {
        Deque<Entry> stack = STACK.get();
        if (stack == null) {
            return null;
        }
        Iterator<Entry> it = stack.descendingIterator();
        while (it.hasNext()) {
            Entry entry = it.next();
            if (entry.operation() == operation) {
                return entry;
            }
        }
        return null;
    }

    static void push(Entry entry) {
        Deque<Entry> stack = STACK.get();
        if (stack == null) {
            stack = new ArrayDeque<>(4);
            STACK.set(stack);
        }
        stack.addLast(entry);
    }

    static void pop(Entry entry) {
        Deque<Entry> stack = STACK.get();
        if (stack == null) {
            return;
        }
        stack.removeLastOccurrence(entry);
        if (stack.isEmpty()) {
            STACK.remove();
        }
    }

    /** The entry for {@code key} on {@code client} on this thread, innermost, or {@code null}. */
    static Entry find(LockClient client, String key) {
        Deque<Entry> stack = STACK.get();
        if (stack == null) {
            return null;
        }
        Iterator<Entry> it = stack.descendingIterator();
        while (it.hasNext()) {
            Entry entry = it.next();
            if (entry.client() == client && entry.key().equals(key)) {
                return entry;
            }
        }
        return null;
    }

    /** The leases of the annotated calls running on this thread, outermost first. */
    public static List<LockLease> leases() {
        Deque<Entry> stack = STACK.get();
        if (stack == null || stack.isEmpty()) {
            return List.of();
        }
        List<LockLease> leases = new ArrayList<>(stack.size());
        for (Entry entry : stack) {
            leases.add(entry.lease());
        }
        return leases;
    }
}
