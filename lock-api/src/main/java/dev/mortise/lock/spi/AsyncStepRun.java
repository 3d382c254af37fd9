package dev.mortise.lock.spi;

import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One asynchronous run of a backend's {@link WaitSteps} ({@link WaitDriver#start}). Between steps it
 * holds no thread: a sleep is a token that the step's wake-up, a timer, or the answer's completion
 * claims, and whoever claims it first schedules the next step on the executor; the others find the
 * token gone and do nothing. So steps never overlap, and {@link WaitSteps#end} runs once, after the
 * last.
 */
final class AsyncStepRun {

    private final LockBackend backend;
    private final WaitSteps steps;
    /** Where each step runs. */
    private final java.util.concurrent.Executor executor;
    private final CompletableFuture<Optional<Grant>> answer = new CompletableFuture<>();
    /** The current sleep; null while a step runs or after the end. */
    private final AtomicReference<Sleep> sleeping = new AtomicReference<>();
    private volatile ScheduledFuture<?> timer;
    /**
     * The wake-up future a callback is registered on (by the stepping thread only). A step that sleeps on the
     * same future again (a {@link Wakeup} not signalled since) adds no second callback: one per future, not
     * one per sleep, however long the wait.
     */
    private CompletableFuture<?> watched;

    /** One sleep, by identity: the token its wake-ups race to claim. */
    private static final class Sleep {
        final CompletableFuture<?> wake;

        Sleep(CompletableFuture<?> wake) {
            this.wake = wake;
        }
    }

    AsyncStepRun(LockBackend backend, WaitSteps steps, java.util.concurrent.Executor executor) {
        this.backend = backend;
        this.steps = steps;
        this.executor = executor;
        answer.whenComplete((grant, failure) -> {
            Sleep token = sleeping.get();
            if (token != null) {
                wake(token);
            }
        });
    }

    CompletableFuture<Optional<Grant>> answer() {
        return answer;
    }

    void step() {
        if (answer.isDone()) {
            steps.end(false, new CancellationException("the wait's answer was completed by its caller"));
            return;
        }
        WaitStep step;
        try {
            step = steps.next();
        } catch (Throwable failure) {
            answer.completeExceptionally(failure);
            steps.end(false, failure);
            return;
        }
        if (step.sleeps()) {
            sleep(step);
        } else if (step.isGranted()) {
            Grant grant = step.grant().get();
            boolean taken = answer.complete(Optional.of(grant));
            steps.end(true, null);
            if (!taken) {
                releaseQuietly(grant);
            }
        } else {
            answer.complete(Optional.empty());
            steps.end(false, null);
        }
    }

    private void sleep(WaitStep step) {
        CompletableFuture<?> wake = step.wakeFuture();
        Sleep token = new Sleep(wake);
        sleeping.set(token);
        if (answer.isDone() || wake.isDone() || step.sleepNanos() == 0) {
            wake(token);
            return;
        }
        timer = AsyncWaits.scheduler().schedule(() -> wake(token), step.sleepNanos(), TimeUnit.NANOSECONDS);
        if (!step.wakesOnlyByTime() && wake != watched) {
            watched = wake;
            wake.whenComplete((value, failure) -> wakeIfSleepingOn(wake));
        }
    }

    private void wakeIfSleepingOn(CompletableFuture<?> wake) {
        Sleep token = sleeping.get();
        if (token != null && token.wake == wake) {
            wake(token);
        }
    }

    private void wake(Sleep token) {
        if (!sleeping.compareAndSet(token, null)) {
            return;
        }
        ScheduledFuture<?> scheduled = timer;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
        executor.execute(this::step);
    }

    private void releaseQuietly(Grant grant) {
        try {
            backend.release(grant);
        } catch (RuntimeException ignored) {
            // The hold ends with its lease; nothing else can be done for a caller that is gone.
        }
    }
}
