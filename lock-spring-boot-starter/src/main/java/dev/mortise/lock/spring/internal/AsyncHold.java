package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The hold of one async call (a subscription, a returned future), whatever order its
 * acquire's answer and a cancellation come in: a grant that arrives after the call was
 * cancelled is released at once, a cancellation after the grant releases it, and the lock
 * is released exactly once. Thread-safe.
 */
final class AsyncHold {

    private static final Logger log = LoggerFactory.getLogger(AsyncHold.class);

    private enum State { ACQUIRING, HELD, ENDED }

    private final LockedCall call;
    private final AtomicReference<State> state = new AtomicReference<>(State.ACQUIRING);
    private volatile LockedCall.Held held;
    private volatile boolean cancelRequested;

    AsyncHold(LockedCall call) {
        this.call = call;
    }

    /**
     * The acquire's answer arrived.
     *
     * @return true if the call goes on with it; false if the call was cancelled meanwhile
     *         (the lock has then been released)
     */
    boolean granted(LockedCall.Held granted) {
        held = granted;
        if (state.compareAndSet(State.ACQUIRING, State.HELD)) {
            return true;
        }
        releaseQuietly(granted, "its call was cancelled while the acquire was under way");
        return false;
    }

    /**
     * Nothing was granted (SKIP found it busy, or the acquire failed).
     *
     * @return true if the call still waits for the answer (false: it was cancelled)
     */
    boolean notGranted() {
        return state.compareAndSet(State.ACQUIRING, State.ENDED);
    }

    /** Whether the call was cancelled (or is being cancelled) or ended. */
    boolean ended() {
        return cancelRequested || state.get() == State.ENDED;
    }

    /**
     * The call is being cancelled: from now on {@link #ended()} is true, so nothing more is
     * started under this hold, while the release itself is left to {@link #cancel()} once the
     * cancellation has reached the method (so the lock is not given up while it still runs).
     */
    void cancelRequested() {
        cancelRequested = true;
    }

    /**
     * Releases as the method's result completed: a loss while it ran throws
     * {@link dev.mortise.lock.LockLostException}. No-op if already ended.
     */
    void release() {
        if (state.compareAndSet(State.HELD, State.ENDED)) {
            call.release(held);
        }
    }

    /** As {@link #release()} after the result failed with {@code failure}. */
    void releaseAfterFailure(Throwable failure) {
        if (state.compareAndSet(State.HELD, State.ENDED)) {
            LockInvoker.releaseAfterFailure(call, held, failure);
        }
    }

    /**
     * The call was cancelled (or ended some way nobody releases on): releases the lock if
     * held, or has a grant still on its way released when it arrives. Never throws.
     */
    void cancel() {
        if (state.compareAndSet(State.ACQUIRING, State.ENDED)) {
            return;
        }
        if (state.compareAndSet(State.HELD, State.ENDED)) {
            releaseQuietly(held, "its call was cancelled");
        }
    }

    private void releaseQuietly(LockedCall.Held toRelease, String why) {
        try {
            call.release(toRelease);
        } catch (LockException e) {
            // Cancelled: nobody waits for the result, and a loss or an unreachable server
            // leaves nothing to do (the lease runs out).
            log.debug("Released lock '{}' of {} because {}: {}", call.key(), call.operation().describeMethod(), why,
                    e.toString());
        } catch (RuntimeException e) {
            log.warn("Releasing lock '{}' of {} after {} failed; it ends when its lease runs out: {}", call.key(),
                    call.operation().describeMethod(), why, e.toString());
        }
    }
}
