package dev.mortise.lock.spring.internal;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Holds the lock of a method returning a {@link CompletionStage} until the stage
 * completes. The lock is acquired on the calling thread (waiting there, per the policy)
 * under an owner of its own, since the hold outlives the call; failures to acquire come
 * back as a failed future, SKIP as a future completed with {@code null}. The returned
 * stage completes after the release, so a caller that joins it finds the lock free.
 */
public final class CompletionStageHandler implements ReturnTypeHandler {

    @Override
    public boolean supports(Class<?> returnType) {
        return CompletionStage.class.isAssignableFrom(returnType);
    }

    @Override
    public Object handle(LockedCall call) throws Throwable {
        Optional<LockedCall.Held> acquired;
        try {
            acquired = call.acquire(call.owner(true));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (acquired.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        LockedCall.Held held = acquired.get();
        Object result;
        try {
            result = call.proceed(held);
        } catch (Throwable failure) {
            LockInvoker.releaseAfterFailure(call, held, failure);
            throw failure;
        }
        if (result == null) {
            call.release(held);
            return null;
        }
        return ((CompletionStage<?>) result).whenComplete((value, failure) -> call.release(held));
    }
}
