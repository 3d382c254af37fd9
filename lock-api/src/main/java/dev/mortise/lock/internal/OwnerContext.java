package dev.mortise.lock.internal;

/**
 * Who re-enters a lock: a thread, or an explicit owner id. Two requests with equal
 * contexts nest.
 */
final class OwnerContext {

    private final Thread thread;
    private final String id;

    private OwnerContext(Thread thread, String id) {
        this.thread = thread;
        this.id = id;
    }

    static OwnerContext of(String explicitOwner) {
        return explicitOwner == null ? new OwnerContext(Thread.currentThread(), null) : new OwnerContext(null, explicitOwner);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OwnerContext other && thread == other.thread
                && (id == null ? other.id == null : id.equals(other.id));
    }

    @Override
    public int hashCode() {
        return thread != null ? System.identityHashCode(thread) : id.hashCode();
    }

    @Override
    public String toString() {
        return thread != null ? "thread " + thread.getName() : "owner " + id;
    }
}
