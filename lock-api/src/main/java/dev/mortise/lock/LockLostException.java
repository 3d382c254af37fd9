package dev.mortise.lock;

/**
 * A lease stopped being valid while its holder still had it open: it expired, the
 * server refused a renewal, or the session behind it died. Thrown by
 * {@link LockLease#ensureValid()} and by {@link LockLease#close()} of a lease that was
 * lost while open, so a loss never goes unnoticed. Another owner may hold the lock now;
 * work done since {@link #reason() the loss} was not protected.
 */
public class LockLostException extends LockException {

    private static final long serialVersionUID = 1L;

    private final LostReason reason;

    public LockLostException(String message, String key, String backend, LostReason reason, Throwable cause) {
        super(message, key, backend, cause);
        this.reason = reason;
    }

    /** Why the lease was lost. */
    public LostReason reason() {
        return reason;
    }
}
