package dev.mortise.lock.redis.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A duration as the decimal milliseconds a script takes (at least 1), remembering the last one:
 * nearly every request of a backend carries the same lease, so its text is made once instead of
 * once per call. Thread-safe (the remembered pair is immutable and published through a volatile).
 */
public final class MillisText {

    private record Last(long millis, String text) {
    }

    private volatile Last last = new Last(1, "1");

    /** {@code max(1, duration in ms)} in decimal. */
    String of(Duration duration) {
        long millis = Math.max(1, duration.toMillis());
        Last seen = last;
        if (seen.millis() == millis) {
            return seen.text();
        }
        String text = Long.toString(millis);
        last = new Last(millis, text);
        return text;
    }

    /** {@code max(1, duration in ms)} in decimal, not remembered. */
    public static String millis(Duration duration) {
        return Long.toString(Math.max(1, duration.toMillis()));
    }

    /** As {@link #millis}, for nanoseconds: no Duration per waiting acquire. */
    static String millisOfNanos(long nanos) {
        return Long.toString(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
    }
}
