package dev.mortise.lock.spi;

import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a backend's {@link WaitSteps}: {@link #await} on the caller's thread for the blocking
 * {@link LockBackend#acquire}, {@link #start} on {@link AsyncWaits}' shared threads for
 * {@link LockBackend#acquireAsync}. One loop per backend, two ways to run it. Thread-safe.
 */
public final class WaitDriver {

    private WaitDriver() {
    }

    /**
     * Runs {@code steps} on this thread until granted or ran out, sleeping between steps on the
     * step's wake-up. An interrupt ends the wait before a sleep or during one: {@link WaitSteps#end}
     * is called with the {@link InterruptedException}, which is then thrown.
     *
     * @param key the user's key, for the interrupt's message
     * @return the grant, or empty when the wait ran out
     * @throws InterruptedException if interrupted (after {@code end})
     */
    public static Optional<Grant> await(WaitSteps steps, String key) throws InterruptedException {
        boolean granted = false;
        Throwable failure = null;
        try {
            while (true) {
                WaitStep step = steps.next();
                if (!step.sleeps()) {
                    granted = step.isGranted();
                    return step.grant();
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for lock '" + key + "'");
                }
                sleep(step);
            }
        } catch (Throwable e) {
            failure = e;
            throw e;
        } finally {
            steps.end(granted, failure);
        }
    }

    private static void sleep(WaitStep step) throws InterruptedException {
        if (step.sleepNanos() == 0) {
            return;
        }
        if (step.wakesOnlyByTime()) {
            TimeUnit.NANOSECONDS.sleep(step.sleepNanos());
            return;
        }
        try {
            step.wake().get(step.sleepNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | CancellationException | TimeoutException e) {
            // woken (a failed or cancelled wake-up wakes too) or timed out: either way, the next step
        }
    }

    /**
     * Runs {@code steps} without holding a thread while they sleep: each step on
     * {@link AsyncWaits#executor()}, each timed wake-up on {@link AsyncWaits#scheduler()}. The answer is
     * completed with the grant, empty when the wait ran out, or the failure a step threw; never on the
     * caller's thread. Completing the answer from outside (cancel, or the client's own deadline) ends the
     * wait at its next step boundary: a sleeping wait at once, a step in flight when it returns; a grant
     * it brings is released through {@code backend}.
     */
    public static CompletableFuture<Optional<Grant>> start(LockBackend backend, WaitSteps steps) {
        return start(backend, steps, AsyncWaits.executor());
    }

    /**
     * As {@link #start(LockBackend, WaitSteps)}, each step on {@code executor} instead of the shared
     * one: for a backend whose steps can block for long (a call that waits out a lost connection up to
     * the operation timeout), so that its stalled steps take threads of its own pool, never the few
     * every other wait and callback of the JVM shares. Timed wake-ups still use
     * {@link AsyncWaits#scheduler()}. {@code executor} must not grow with the number of waits.
     */
    public static CompletableFuture<Optional<Grant>> start(LockBackend backend, WaitSteps steps,
                                                           java.util.concurrent.Executor executor) {
        AsyncStepRun run = new AsyncStepRun(backend, steps, executor);
        executor.execute(run::step);
        return run.answer();
    }
}
