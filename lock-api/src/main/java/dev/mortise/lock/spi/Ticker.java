package dev.mortise.lock.spi;

/**
 * The clock of a hold's lifetime: monotonic nanoseconds, as {@link System#nanoTime()}. A
 * client measures everything about a hold's lifetime on it — the lease start
 * ({@link Grant#requestedAtNanos()}), local validity and its drift allowance, the watchdog's
 * renewal schedule, the expiry of leases and of {@code closeLingering} holds — and so does the
 * in-process server for the leases it keeps. Waiting for a lock is not lease time: wait
 * deadlines, backoff and pauses always run on real time, so a test whose ticker never moves
 * still cannot wait forever.
 *
 * <p>Production code uses {@link #system()}, the default everywhere. Tests of code that uses
 * Mortise use a ticker they move by hand (the {@code lock-test} artifact's {@code ManualTicker})
 * so that leases expire on demand, without sleeping. A client and its backend always share one
 * ticker: {@link LockBackend#ticker()} says which one a backend's grants are stamped with, and
 * {@link dev.mortise.lock.LockClientBuilder#ticker} refuses any other.
 *
 * <p>Implementations are thread-safe; {@link #read()} is called on every validity check, so it
 * must be cheap and never block.
 */
@FunctionalInterface
public interface Ticker {

    /** Now, in nanoseconds from an arbitrary origin; never decreases. */
    long read();

    /**
     * Registers work that must follow a jump of this ticker at once, as it would have happened
     * on time had time flowed: clients re-check due renewals and expiries, the in-process server
     * wakes waiters whose holder's lease ended. A ticker that moves by jumps calls every
     * registered listener, on the thread that moved it, after each jump. The system ticker
     * never jumps and ignores listeners (the default), so the hook costs nothing there.
     *
     * @return what unregisters the listener (a no-op for tickers that never jump)
     */
    default Runnable onJump(JumpListener listener) {
        return () -> { };
    }

    /** The system ticker, {@link System#nanoTime()}: one instance, the default of every client and backend. */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }

    /** Whether this is {@link #system()}. */
    default boolean isSystem() {
        return this == SystemTicker.INSTANCE;
    }

    /** Told after a jump of a ticker; see {@link Ticker#onJump}. */
    @FunctionalInterface
    interface JumpListener {

        /**
         * The ticker's time jumped (or, with a jump of zero, the world changed under the
         * listener): do now what became due, and return once it is done and what it tells
         * users (loss notices) has been delivered, within a bounded time.
         *
         * @return the longest next jump, in nanoseconds, that would skip none of the listener's
         *         periodic work (a watchdog returns its renewal period while it renews holds);
         *         {@link Long#MAX_VALUE} when any jump is fine
         */
        long jumped();
    }
}

/** {@link System#nanoTime()}; a class of its own so that it is one instance and one type (cheap to inline). */
final class SystemTicker implements Ticker {

    static final SystemTicker INSTANCE = new SystemTicker();

    private SystemTicker() {
    }

    @Override
    public long read() {
        return System.nanoTime();
    }

    @Override
    public String toString() {
        return "Ticker.system()";
    }
}
