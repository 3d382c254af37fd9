package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ends the holds of {@code @DistributedLock(holdAtLeast = ...)} calls so that no other
 * owner gets the lock before holdAtLeast has passed, not even across a shutdown: a hold
 * released with time left is left on the server to expire at that instant
 * ({@link dev.mortise.lock.LockLease#closeLingering}), and on {@link #close()} — before
 * the lock clients close — the holds whose methods still run are left the same way.
 * Nothing is scheduled in this process, so nothing is lost when it stops (on ZooKeeper,
 * whose holds end with the session, a lingering hold leaves a marker node that outlives
 * it). Thread-safe.
 */
public final class LeaseReleaser implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseReleaser.class);

    /** Open holds with a holdAtLeast, to leave on the server at shutdown. */
    private final Set<LockedCall.Held> open = ConcurrentHashMap.newKeySet();

    void track(LockedCall.Held held) {
        open.add(held);
    }

    /**
     * Ends {@code held}: leaves it on the server until {@code holdAtLeast} after it was
     * granted if that is still ahead, else releases it.
     *
     * @throws dev.mortise.lock.LockLostException if the hold was lost while open
     */
    void release(LockedCall.Held held, Duration holdAtLeast) {
        open.remove(held);
        held.lease().closeLingering(left(held, holdAtLeast));
    }

    private static Duration left(LockedCall.Held held, Duration holdAtLeast) {
        return holdAtLeast.minusNanos(System.nanoTime() - held.acquiredNanos());
    }

    /**
     * Leaves every hold still open on the server until its holdAtLeast (released at once if
     * that has passed). Called before the lock clients close, which would release them.
     */
    @Override
    public void close() {
        for (LockedCall.Held held : open) {
            if (!open.remove(held)) {
                continue;
            }
            try {
                held.lease().closeLingering(left(held, held.holdAtLeast()));
            } catch (LockException e) {
                log.info("At shutdown, lock '{}' could not be left to its holdAtLeast: {}", held.lease().key(),
                        e.getMessage());
            }
        }
    }
}
