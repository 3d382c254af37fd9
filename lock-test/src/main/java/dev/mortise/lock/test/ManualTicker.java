package dev.mortise.lock.test;

import dev.mortise.lock.spi.Ticker;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Ticker} that stands still until a test moves it. Lease time of every client and
 * in-process server built on it moves only by {@link #advance}; waits for a lock stay real.
 *
 * <p>{@link #advance} moves time in steps no longer than the shortest renewal period of any
 * renewed hold on it, and after each step lets every client and server on this ticker do what
 * became due (renew, expire, wake waiters, deliver {@code onLost} notices) before the next —
 * as if time had flowed. So a renewed lease survives {@code advance(Duration.ofHours(1))}, and
 * an explicit lease, a lingering hold or a lease whose renewals fail ends, with its
 * {@code onLost} callbacks run before {@code advance} returns.
 *
 * <p>Thread-safe: {@link #read()} is lock-free; moves are serialised (one at a time).
 */
public final class ManualTicker implements Ticker {

    /** An arbitrary origin, far from {@link System#nanoTime()}'s, so that mixing the two shows. */
    private static final long ORIGIN = 1L << 60;
    /** A listener that asks for no step at all would stall {@link #advance}: steps are at least this. */
    private static final long SHORTEST_STEP = 1_000_000;
    /** Most steps one {@link #advance} takes: beyond, the call is refused rather than run for minutes. */
    static final long MOST_STEPS = 100_000;

    private volatile long now = ORIGIN;
    private final List<JumpListener> listeners = new CopyOnWriteArrayList<>();
    /**
     * One time move at a time, and the clients' catch-up inside it (renewals, expiries, loss
     * notices: round trips). A lock, not a monitor: a virtual test thread does not pin its carrier.
     */
    private final ReentrantLock moving = new ReentrantLock();

    @Override
    public long read() {
        return now;
    }

    /** How far this ticker has moved since it was made. */
    public Duration elapsed() {
        return Duration.ofNanos(now - ORIGIN);
    }

    /**
     * Moves time forward by {@code duration}, in steps, and returns once every client and server
     * on this ticker has caught up with it: renewals due renewed, leases that ran out expired
     * and their {@code onLost} callbacks run (each client waits at most 10 seconds for a
     * callback that blocks). Zero only lets them catch up ({@link #settle()}).
     *
     * @throws IllegalArgumentException if {@code duration} is null or negative (time never goes back),
     *                                  or so long that renewing held locks through it would take more
     *                                  than 100 000 steps (advance less, or close the renewed leases first)
     */
    public void advance(Duration duration) {
        if (duration == null || duration.isNegative()) {
            throw new IllegalArgumentException("ManualTicker.advance needs a zero or positive duration, was "
                    + duration + ": lease time never goes back");
        }
        moving.lock();
        try {
            advanceLocked(duration);
        } finally {
            moving.unlock();
        }
    }

    private void advanceLocked(Duration duration) {
        long left = saturatedNanos(duration);
        long step = settle();
        long steps = 0;
        while (left > 0) {
            if (++steps > MOST_STEPS || steps == 1 && left / step >= MOST_STEPS) {
                throw new IllegalArgumentException("ManualTicker.advance(" + duration + ") stopped after "
                        + elapsed() + ": renewing the held locks every " + Duration.ofNanos(step) + " through it would "
                        + "take more than " + MOST_STEPS + " steps. Advance less, or close renewed leases first");
            }
            long jump = Math.min(left, step);
            now += jump;
            left -= jump;
            step = settle();
        }
    }

    /**
     * Lets every client and server on this ticker do what is due now, without moving time, and
     * returns once done (loss notices delivered). The test support calls it after each change it
     * makes to a server (an expired or stolen hold) so that its effect is visible on return.
     *
     * @return the longest next step that skips no renewal
     */
    public long settle() {
        moving.lock();
        try {
            long step = Long.MAX_VALUE;
            for (JumpListener listener : listeners) {
                step = Math.min(step, listener.jumped());
            }
            return Math.max(SHORTEST_STEP, step);
        } finally {
            moving.unlock();
        }
    }

    @Override
    public Runnable onJump(JumpListener listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE / 4;
        }
    }

    @Override
    public String toString() {
        return "ManualTicker[elapsed=" + elapsed() + "]";
    }
}
