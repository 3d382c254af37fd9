package dev.mortise.lock.spi;

import java.time.Duration;

/** {@link System#nanoTime()} arithmetic that saturates instead of overflowing. */
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
}
