package dev.mortise.lock.jdbc.internal;

import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackoffPolling;
import dev.mortise.lock.spi.WaitStep;
import dev.mortise.lock.spi.WaitSteps;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One wait for one key ({@link JdbcWait#steps}), the loop of the blocking and the asynchronous
 * acquire alike: each step is one attempt (a JDBC call, bounded by the operation and network
 * timeouts), then a sleep on a future, so the asynchronous form holds no thread between attempts.
 * The future is the key's {@link ReleaseSignals.Signal} moving past the generation read before the
 * attempt (so a NOTIFY between the attempt and the sleep still wakes it), or, once per wait, LISTEN
 * coming up when the attempt found it down. Not thread-safe: a driver takes the steps one at a time.
 */
final class JdbcWaitSteps implements WaitSteps {

    private static final long ONE_MILLI = TimeUnit.MILLISECONDS.toNanos(1);

    private final JdbcWait waits;
    private final ReleaseSignals.Signal signal;
    private final long deadline;
    private final JdbcWait.Attempts attempts;
    private boolean started;
    private boolean awaitedListener;
    private long ceiling = BackoffPolling.INITIAL_NANOS;
    /** The last sleep's future on the signal, dropped at the next step (a sleep that ended by time leaves it). */
    private CompletableFuture<Void> sleeper;

    JdbcWaitSteps(JdbcWait waits, ReleaseSignals.Signal signal, long deadline, JdbcWait.Attempts attempts) {
        this.waits = waits;
        this.signal = signal;
        this.deadline = deadline;
        this.attempts = attempts;
    }

    @Override
    public WaitStep next() {
        ReleaseListener listener = waits.listener();
        if (!started) {
            started = true;
            if (listener != null) {
                listener.start(); // without waiting: a down database fails the first attempt at once
            }
        }
        signal.forget(sleeper);
        sleeper = null;
        long seen = signal.generation();
        long left = deadline - System.nanoTime();
        long mark = Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(Math.max(left, 0), waits.markHorizonNanos())));
        Attempt attempt = attempts.attempt(mark);
        if (attempt.isGranted()) {
            return WaitStep.granted(attempt.grant().get());
        }
        left = deadline - System.nanoTime();
        if (left <= 0) {
            return WaitStep.ranOut();
        }
        if (listener != null && !awaitedListener && !listener.isListening()) {
            // Busy before LISTEN was up: wait for it once, then try again at once, since a
            // release in between was not heard.
            awaitedListener = true;
            return WaitStep.sleep(listener.listening(), Math.min(waits.listenStartNanos(), left));
        }
        sleeper = signal.after(seen);
        return WaitStep.sleep(sleeper, Math.min(sleepNanos(listener, attempt), left));
    }

    /** Until the push poll interval while listening, else the next backoff; never past the holder's lease. */
    private long sleepNanos(ReleaseListener listener, Attempt attempt) {
        long sleep;
        if (listener != null && listener.isListening()) {
            sleep = waits.pollNanos();
        } else {
            sleep = ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
            ceiling = Math.min(BackoffPolling.MAX_NANOS, ceiling * 2);
        }
        if (attempt.holderRemaining().isPresent()) {
            sleep = Math.min(sleep, attempt.holderRemaining().get().toNanos() + ONE_MILLI);
        }
        return sleep;
    }

    @Override
    public void end(boolean granted, Throwable failure) {
        signal.forget(sleeper);
        signal.close();
        if (!granted) {
            attempts.giveUp();
        }
    }
}
