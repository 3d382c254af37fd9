package dev.mortise.lock;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The permits of one {@link LockSemaphore} acquisition: one handle for all of them, open until
 * {@link #close() closed}, which releases them all.
 *
 * <p>Native semaphore ({@link LockSemaphore#isNative()}): all {@link #count()} permits are one
 * {@link LockLease} on the semaphore's key, one hold with one fencing token; {@link #parts()} and
 * {@link #fencingTokens()} have one element each and {@link #slots()} is empty.
 *
 * <p>Slot fallback: each permit is an ordinary {@link LockLease} on its slot key (see
 * {@link LockSemaphore}), with its own validity and its own fencing token. A lost permit does not
 * release the others: they stay held until this handle is closed.
 *
 * <p>Either way, the parts are renewed in the background or hold the acquisition's explicit lease;
 * this handle is valid while every part is, its remaining time is the least of theirs, and it is
 * lost (once) when the first part is lost.
 *
 * <p>Thread-safe. May be closed on any thread; closing twice is a no-op.
 */
public interface PermitLease extends AutoCloseable {

    /** The semaphore's name. */
    String semaphore();

    /** The backend that granted the permits. */
    String backend();

    /** How many permits this handle holds. */
    int count();

    /** The slot number of each permit, ascending; empty for a native semaphore (it has no slots). */
    List<Integer> slots();

    /** The lease of each permit, in the order of {@link #slots()}; native: the one lease of all permits. */
    List<LockLease> parts();

    /**
     * Native: one token, from the semaphore's one counter (strictly greater than every earlier
     * acquisition's of the same semaphore). Slot fallback: the token of each permit, in the order of
     * {@link #slots()}, per slot: strictly greater than every earlier grant of the same slot, not
     * comparable across slots.
     */
    List<Long> fencingTokens();

    /**
     * The {@linkplain LockLease#holderId() holder id} of each part: native, the one id of the
     * acquisition ({@link LockClient#inspect(String)} of {@link LockSemaphore#permitsKey()} shows it);
     * slot fallback, one per permit in the order of {@link #slots()}, as inspecting its slot key shows.
     */
    default List<String> holderIds() {
        return parts().stream().map(LockLease::holderId).toList();
    }

    /** Whether every permit is still valid ({@link LockLease#isValid()}) and this handle is not closed. */
    boolean isValid();

    /** The least {@link LockLease#remaining()} of the permits; {@link Duration#ZERO} once invalid. */
    Duration remaining();

    /**
     * Throws if any permit is no longer valid. Call it before an irreversible step.
     *
     * @throws LockLostException for the first permit that is not valid, or if this handle is closed
     */
    void ensureValid();

    /**
     * {@link LockLease#extend Extends} every permit to {@code lease} from now. Every permit is tried
     * even if one fails.
     *
     * @throws LockException the first failure, with the others suppressed into it
     */
    void extend(Duration lease);

    /**
     * Registers a listener called once, when the first permit is lost while open (with that
     * permit's event), on the thread the core tells that loss on (see {@link LockLease#onLost});
     * called at once, on this thread, if a permit is already lost. A listener that throws is
     * logged and ignored.
     *
     * @return this handle
     */
    PermitLease onLost(Consumer<LockLostEvent> listener);

    /**
     * Releases every permit. A permit that fails to release does not stop the others.
     *
     * @throws LockException the first failure (a {@link LockLostException} if a permit was lost
     *                       while open), with the others suppressed into it
     */
    @Override
    void close();
}
