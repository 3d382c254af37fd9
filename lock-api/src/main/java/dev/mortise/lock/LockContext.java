package dev.mortise.lock;

import java.util.List;
import java.util.Optional;

/**
 * The leases acquired on the current thread and still open, innermost last.
 *
 * <p>Lets code deep inside a locked section read the fencing token without passing the
 * lease around: {@code LockContext.current().orElseThrow().fencingToken()}. A lease
 * closed on another thread leaves this thread's context at once.
 */
public final class LockContext {

    private LockContext() {
    }

    /** The innermost open lease acquired on this thread, if any. */
    public static Optional<LockLease> current() {
        return Core.PROVIDER.currentLease();
    }

    /** The open lease on {@code key} acquired on this thread, innermost first, if any. */
    public static Optional<LockLease> find(String key) {
        return Core.PROVIDER.findLease(key);
    }

    /** All open leases acquired on this thread, outermost first. */
    public static List<LockLease> all() {
        return Core.PROVIDER.threadLeases();
    }
}
