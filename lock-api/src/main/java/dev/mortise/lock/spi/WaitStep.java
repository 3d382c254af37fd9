package dev.mortise.lock.spi;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What one step of a backend's wait ({@link WaitSteps#next()}) decided: the key is granted, the wait
 * ran out, or the wait sleeps until {@link #wake()} completes or {@link #sleepNanos()} pass and then
 * takes its next step. Immutable.
 */
public final class WaitStep {

    private static final WaitStep RAN_OUT = new WaitStep(null, null, 0);

    private final Grant grant;
    private final CompletableFuture<?> wake;
    private final long sleepNanos;

    private WaitStep(Grant grant, CompletableFuture<?> wake, long sleepNanos) {
        this.grant = grant;
        this.wake = wake;
        this.sleepNanos = sleepNanos;
    }

    /** The request was granted: the wait ends with {@code grant}. */
    public static WaitStep granted(Grant grant) {
        return new WaitStep(Objects.requireNonNull(grant, "grant"), null, 0);
    }

    /** The wait ran out (its deadline passed, or a zero wait was refused): it ends with no grant. */
    public static WaitStep ranOut() {
        return RAN_OUT;
    }

    /**
     * Sleep until {@code wake} completes (normally or not: either only wakes) or {@code nanos} pass,
     * whichever is first, then take the next step. A step bounds {@code nanos} by its own deadline: the
     * drivers know none. {@code wake} should be a future made for this sleep, or one that is complete
     * or soon will be: the asynchronous driver adds a callback to it per sleep.
     */
    public static WaitStep sleep(CompletableFuture<?> wake, long nanos) {
        return new WaitStep(null, Objects.requireNonNull(wake, "wake"), Math.max(0, nanos));
    }

    /** As {@link #sleep(CompletableFuture, long)} with nothing to wake it but time. */
    public static WaitStep sleep(long nanos) {
        return sleep(NEVER, nanos);
    }

    /** {@link #sleep(long)}'s wake: never completed (the drivers neither wait on it nor add callbacks to it). */
    private static final CompletableFuture<Void> NEVER = new CompletableFuture<>();

    public Optional<Grant> grant() {
        return Optional.ofNullable(grant);
    }

    public boolean isGranted() {
        return grant != null;
    }

    /** Whether the wait sleeps (else it is over: granted or ran out). */
    public boolean sleeps() {
        return wake != null;
    }

    /** What ends the sleep early; only when {@link #sleeps()} (a sleep on time alone answers a fresh, incomplete future). */
    public CompletableFuture<?> wake() {
        return wakesOnlyByTime() ? new CompletableFuture<>() : wake;
    }

    /** The longest the sleep lasts; only when {@link #sleeps()}. */
    public long sleepNanos() {
        return sleepNanos;
    }

    /** The wake-up as given (for a sleep on time alone, the shared never-completed future). */
    CompletableFuture<?> wakeFuture() {
        return wake;
    }

    boolean wakesOnlyByTime() {
        return wake == NEVER;
    }

    @Override
    public String toString() {
        return grant != null ? "granted" : wake == null ? "ran out"
                : "sleep " + TimeUnit.NANOSECONDS.toMillis(sleepNanos) + " ms";
    }
}
