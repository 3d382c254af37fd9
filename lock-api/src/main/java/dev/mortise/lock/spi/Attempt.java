package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/** The answer to one {@link LockBackend#tryAcquire} attempt: a grant, or busy. */
public final class Attempt {

    private static final Attempt BUSY_UNKNOWN = new Attempt(null, null);

    private final Grant grant;
    private final Duration holderRemaining;

    private Attempt(Grant grant, Duration holderRemaining) {
        this.grant = grant;
        this.holderRemaining = holderRemaining;
    }

    public static Attempt granted(Grant grant) {
        return new Attempt(Objects.requireNonNull(grant, "grant"), null);
    }

    /** Busy; {@code holderRemaining} is the holder's remaining lease, or {@code null} if unknown. */
    public static Attempt busy(Duration holderRemaining) {
        return holderRemaining == null ? BUSY_UNKNOWN : new Attempt(null, holderRemaining);
    }

    public boolean isGranted() {
        return grant != null;
    }

    public Optional<Grant> grant() {
        return Optional.ofNullable(grant);
    }

    /** The holder's remaining lease when busy and the server said so. */
    public Optional<Duration> holderRemaining() {
        return Optional.ofNullable(holderRemaining);
    }
}
