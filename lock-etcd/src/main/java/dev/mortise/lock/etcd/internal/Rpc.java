package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Waits for jetcd calls within the operation timeout and turns every failure into a
 * {@link LockBackendException} that names the key, the backend and the fix. jetcd retries
 * and waits for a ready channel on its own; this bound is what keeps an unreachable
 * cluster from hanging a caller. Thread-safe.
 */
public final class Rpc {

    private static final long RETRY_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Duration timeout;

    public Rpc(Duration timeout) {
        this.timeout = timeout;
    }

    public Duration timeout() {
        return timeout;
    }

    /** A deadline one operation timeout from now. */
    long deadline() {
        return System.nanoTime() + timeout.toNanos();
    }

    /** Waits for {@code future}; an interrupt ends the wait with a backend exception and the flag set again. */
    <T> T await(CompletableFuture<T> future, String key, String action) {
        return await(future, deadline(), key, action);
    }

    <T> T await(CompletableFuture<T> future, long deadline, String key, String action) {
        try {
            return awaitInterruptibly(future, deadline, key, action);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockBackendException("Interrupted while etcd was asked to " + action + " for lock '" + key
                    + "' (backend 'etcd'); the outcome is unknown and any key left behind is cleaned up in the "
                    + "background. Do not interrupt lock calls that cannot wait.", key, EtcdErrors.BACKEND, e);
        }
    }

    <T> T awaitInterruptibly(CompletableFuture<T> future, long deadline, String key, String action)
            throws InterruptedException {
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            future.cancel(true);
            throw e;
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new LockBackendException("etcd did not answer within the operation timeout of " + timeout + " to "
                    + action + " for lock '" + key + "' (backend 'etcd'). Check that the endpoints are reachable and "
                    + "the cluster has a leader, or raise EtcdLockBackendBuilder.operationTimeout.", key, EtcdErrors.BACKEND, e);
        } catch (ExecutionException e) {
            throw EtcdErrors.failure(e.getCause(), key, action);
        }
    }

    /**
     * Runs a read or an idempotent call ({@code call} starts it anew each time), retrying
     * while etcd answers UNAVAILABLE ("no leader", "leader changed", a member going down)
     * until {@code deadline}: an election takes about an election timeout, and a renewal
     * or a waiter's look that gives up at the first refusal would turn a routine failover
     * into lost locks. Writes that are not idempotent are never passed here.
     */
    <T> CompletableFuture<T> retrying(Supplier<CompletableFuture<T>> call, long deadline) {
        CompletableFuture<T> result = new CompletableFuture<>();
        attempt(call, deadline, result);
        return result;
    }

    private <T> void attempt(Supplier<CompletableFuture<T>> call, long deadline, CompletableFuture<T> result) {
        if (result.isDone()) {
            return;
        }
        call.get().whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else if (EtcdErrors.isUnavailable(failure) && deadline - System.nanoTime() > RETRY_DELAY_NANOS) {
                CompletableFuture.delayedExecutor(RETRY_DELAY_NANOS, TimeUnit.NANOSECONDS)
                        .execute(() -> attempt(call, deadline, result));
            } else {
                result.completeExceptionally(failure);
            }
        });
    }
}
