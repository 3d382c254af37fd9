package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link System#nanoTime()} arithmetic that saturates instead of overflowing, and the
 * bounded, uninterruptible wait for a server's answer that backends share.
 */
public final class Deadlines {

    /** Longest wait taken literally (about 146 years); anything longer waits as long. */
    private static final long FOREVER = Long.MAX_VALUE / 2;

    private Deadlines() {
    }

    /** The nanoTime deadline {@code wait} after {@code nowNanos}. */
    public static long after(long nowNanos, Duration wait) {
        long nanos;
        try {
            nanos = wait.toNanos();
        } catch (ArithmeticException tooLong) {
            nanos = FOREVER;
        }
        return nowNanos + Math.min(nanos, FOREVER);
    }

    /** Nanoseconds left until {@code deadline}, never negative. */
    public static long left(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    /**
     * Waits for {@code answer} until {@code deadlineNanos}, not giving in to interrupts: a
     * request already sent must be seen through (abandoning it half-way would leave its outcome
     * unknown), and every wait is bounded anyway. An interrupt that arrives meanwhile is kept
     * and the thread's flag set again before this returns or throws.
     *
     * @throws ExecutionException if the answer is a failure
     * @throws TimeoutException   if no answer came by the deadline
     */
    public static <T> T awaitUninterruptibly(Future<T> answer, long deadlineNanos)
            throws ExecutionException, TimeoutException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return answer.get(left(deadlineNanos), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
