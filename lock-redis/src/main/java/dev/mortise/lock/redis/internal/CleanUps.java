package dev.mortise.lock.redis.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Clean-up writes that must not be lost (giving back what a timed-out, failed or abandoned
 * attempt may have taken; leaving a fair queue): each is sent at once and, if the server does
 * not confirm it (a failure, or no answer within the operation timeout), sent again in the
 * background with growing pauses (50 ms doubling to 1 s) until it is confirmed or its deadline
 * passes. The deadline is where the lease the attempt asked for has certainly run out (see
 * {@link Deployment#horizon}); after it nothing is left to clean. Every clean-up write is
 * idempotent and owner-checked, so sending it twice is harmless. Nothing here blocks a caller.
 */
public final class CleanUps {

    private static final long FIRST_PAUSE_MS = 50;
    private static final long LONGEST_PAUSE_MS = 1000;

    private CleanUps() {
    }

    /**
     * Sends {@code call}, retrying it in the background until confirmed or {@code deadline}
     * ({@link System#nanoTime()}) passes, or the client shuts down.
     *
     * @return the first try's reply (bounded by the operation timeout), for callers that want to
     *         wait for one round; the retries go on whatever they do with it
     */
    public static <T> CompletableFuture<T> send(ScriptRunner runner, ScriptCall call, long deadline) {
        CompletableFuture<T> first = attempt(runner, call);
        first.whenComplete((reply, failure) -> {
            if (failure != null) {
                retry(runner, call, deadline, FIRST_PAUSE_MS);
            }
        });
        return first;
    }

    /** The {@link System#nanoTime()} deadline {@code span} from now. */
    public static long deadlineAfter(Duration span) {
        return System.nanoTime() + span.toNanos();
    }

    private static <T> CompletableFuture<T> attempt(ScriptRunner runner, ScriptCall call) {
        try {
            CompletableFuture<T> reply = runner.callAsync(call);
            return reply.orTimeout(runner.timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static void retry(ScriptRunner runner, ScriptCall call, long deadline, long pauseMs) {
        if (System.nanoTime() - deadline >= 0 || stopped(runner)) {
            return; // the lease it could leave behind has run out, or the backend was closed
        }
        Executor later = CompletableFuture.delayedExecutor(pauseMs, TimeUnit.MILLISECONDS);
        later.execute(() -> {
            if (stopped(runner)) {
                return;
            }
            CleanUps.<Object>attempt(runner, call).whenComplete((reply, failure) -> {
                if (failure != null) {
                    retry(runner, call, deadline, Math.min(LONGEST_PAUSE_MS, pauseMs * 2));
                }
            });
        });
    }

    private static boolean stopped(ScriptRunner runner) {
        return runner.transport().stopped();
    }
}
