package dev.mortise.lock;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * A granted hold on several lock keys at once, from {@link LockClient#acquireAll}: every key of
 * the request is held, open until {@link #close() closed}.
 *
 * <p>Each part is an ordinary {@link LockLease} of the client that granted it: renewed in the
 * background (or with the explicit lease of the request), reentrant for its owner, with its own
 * fencing token and validity. This handle only groups them: it is valid while every part is, its
 * remaining time is the least of theirs, and it is lost (once) when any part is lost. A lost part
 * does not end the other parts: they stay held until this handle is closed, as a lost
 * {@code LockLease} stays open until closed.
 *
 * <p>Thread-safe. May be closed on any thread; closing twice is a no-op.
 */
public interface MultiLease extends AutoCloseable {

    /** The backend that granted the parts. */
    String backend();

    /** The distinct keys, in the canonical order they were taken (ascending {@link String#compareTo}). */
    List<String> keys();

    /** The lease of each key, in canonical order. */
    List<LockLease> parts();

    /**
     * The lease of {@code key}.
     *
     * @throws IllegalArgumentException if {@code key} is not one of {@link #keys()}
     */
    LockLease part(String key);

    /**
     * The mode {@code key} was granted in (exclusive if it was asked for both ways).
     *
     * @throws IllegalArgumentException if {@code key} is not one of {@link #keys()}
     */
    LockMode mode(String key);

    /**
     * The fencing token of {@code key}'s part. Each key has its own token (tokens are per key),
     * so a write protected by this lock carries the token of the key that guards it.
     *
     * @throws IllegalArgumentException if {@code key} is not one of {@link #keys()}
     */
    long fencingToken(String key);

    /**
     * The {@linkplain LockLease#holderId() holder id} of {@code key}'s part. There is no one id for
     * the whole: each key is its own hold on the server, so {@link LockClient#inspect(String)} of a
     * key shows that part's id.
     *
     * @throws IllegalArgumentException if {@code key} is not one of {@link #keys()}
     */
    default String holderId(String key) {
        return part(key).holderId();
    }

    /** Whether every part is still valid ({@link LockLease#isValid()}) and this handle is not closed. */
    boolean isValid();

    /** The least {@link LockLease#remaining()} of the parts; {@link Duration#ZERO} once invalid. */
    Duration remaining();

    /**
     * Throws if any part is no longer valid. Call it before an irreversible step.
     *
     * @throws LockLostException for the first part (in canonical order) that is not valid, or
     *                           if this handle is closed
     */
    void ensureValid();

    /**
     * {@link LockLease#extend Extends} every part to {@code lease} from now, in canonical order.
     * Every part is tried even if one fails.
     *
     * @throws IllegalArgumentException if {@code lease} is not acceptable (before any part is touched)
     * @throws LockException            the first failure (a {@link LockLostException} before others),
     *                                  with the failures of the other parts suppressed into it
     */
    void extend(Duration lease);

    /**
     * Registers a listener called once, for the whole, when the first part is lost while open
     * (with that part's event); called at once, on this thread, if a part is already lost. Runs on
     * the thread the core tells the part's loss on (see {@link LockLease#onLost}). A listener that
     * throws is logged and does not disturb the lock or other listeners.
     *
     * @return this handle
     */
    MultiLease onLost(Consumer<LockLostEvent> listener);

    /**
     * Closes every part, in reverse canonical order. A part that fails to close does not stop the
     * others from being closed.
     *
     * @throws LockException the first failure (a {@link LockLostException} before others), with
     *                       the failures of the other parts suppressed into it
     */
    @Override
    void close();

    /**
     * Closes every part as {@link LockLease#closeLingering} does, in reverse canonical order: the
     * holds stay on the server until {@code linger} from now. Failures as in {@link #close()}.
     */
    void closeLingering(Duration linger);
}
