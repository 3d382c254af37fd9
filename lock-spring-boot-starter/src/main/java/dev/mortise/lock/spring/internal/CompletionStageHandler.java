package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.spring.OnLost;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * Holds the lock of a method returning a {@link CompletionStage} until the stage
 * completes. The caller waits for the lock (per the policy), and the method then starts on the
 * caller's thread as a synchronous one would; the acquire itself goes through
 * {@code LockClient.acquireAsync} ({@link PendingAcquire}) under an owner of its own, since the
 * hold outlives the call: the lease never shows in {@link dev.mortise.lock.LockContext} of the
 * calling (pooled) thread. Failures to acquire come back as a failed future, SKIP as a future completed
 * with {@code null}. The returned future completes after the release, so a caller that
 * joins it finds the lock free.
 *
 * <p>Cancelling the returned future releases the lock at once and cancels the method's
 * own future (if it is a {@code CompletableFuture}). An interrupt of the caller while it
 * waits for the lock withdraws the request; a grant already on its way is released.
 * {@link OnLost#CANCEL} and {@link OnLost#INTERRUPT} complete the returned future
 * exceptionally with {@code LockLostException} at the loss.
 */
public final class CompletionStageHandler implements ReturnTypeHandler {

    @Override
    public boolean supports(Class<?> returnType) {
        return CompletionStage.class.isAssignableFrom(returnType);
    }

    @Override
    public Object handle(LockedCall call) throws Throwable {
        AsyncHold hold = new AsyncHold(call);
        String owner = call.owner(true);
        PendingAcquire pending = PendingAcquire.start(call, owner != null ? owner : LockedCall.newOwner());
        CompletableFuture<Optional<LockedCall.Held>> acquired = new CompletableFuture<>();
        pending.answer().whenComplete((held, failure) -> {
            if (failure != null) {
                hold.notGranted();
                acquired.completeExceptionally(PendingAcquire.unwrap(failure));
            } else if (held.isEmpty()) {
                hold.notGranted();
                acquired.complete(held);
            } else if (hold.granted(held.get())) { // false: the caller gave up meanwhile, the hold is released
                acquired.complete(held);
            }
        });
        Optional<LockedCall.Held> result;
        try {
            result = acquired.get();
        } catch (InterruptedException e) {
            hold.cancel();
            pending.cancel();
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(new LockInterruptedException("Interrupted while waiting for lock '"
                    + call.key() + "' of " + call.operation().describeMethod() + "; the method did not run.",
                    call.key(), null, e));
        } catch (ExecutionException e) {
            return CompletableFuture.failedFuture(e.getCause());
        }
        if (result.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return run(call, hold, result.get());
    }

    private static Object run(LockedCall call, AsyncHold hold, LockedCall.Held held) throws Throwable {
        Object value;
        try {
            value = call.proceed(held);
        } catch (Throwable failure) {
            hold.releaseAfterFailure(failure);
            throw failure;
        }
        if (value == null) {
            hold.release();
            return null;
        }
        CompletionStage<?> stage = (CompletionStage<?>) value;
        CompletableFuture<Object> returned = new CompletableFuture<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> lostFirst = new java.util.concurrent.atomic.AtomicReference<>();
        stage.whenComplete((result, failure) -> {
            Throwable lost = lostFirst.get();
            if (lost != null) {
                returned.completeExceptionally(lost);
                return;
            }
            try {
                if (failure != null) {
                    hold.releaseAfterFailure(unwrap(failure));
                } else {
                    hold.release();
                }
            } catch (RuntimeException | Error releaseFailure) {
                returned.completeExceptionally(releaseFailure);
                return;
            }
            if (failure != null) {
                returned.completeExceptionally(unwrap(failure));
            } else {
                returned.complete(result);
            }
        });
        returned.whenComplete((result, failure) -> {
            if (returned.isCancelled()) {
                hold.cancel();
                cancel(stage);
            }
        });
        if (call.onLostPolicy() != OnLost.NOTIFY) {
            call.onLost(held, lost -> {
                if (!returned.isDone() && lostFirst.compareAndSet(null, lost)) {
                    hold.cancel();
                    cancel(stage);
                    returned.completeExceptionally(lost);
                }
            });
        }
        return returned;
    }

    private static void cancel(CompletionStage<?> stage) {
        if (stage instanceof CompletableFuture<?> future) {
            future.cancel(true);
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
