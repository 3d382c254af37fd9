package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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

    static final String BACKEND = "etcd";

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
                    + "background. Do not interrupt lock calls that cannot wait.", key, BACKEND, e);
        }
    }

    <T> T awaitInterruptibly(CompletableFuture<T> future, String key, String action) throws InterruptedException {
        return awaitInterruptibly(future, deadline(), key, action);
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
                    + "the cluster has a leader, or raise EtcdLockBackendBuilder.operationTimeout.", key, BACKEND, e);
        } catch (ExecutionException e) {
            throw failure(e.getCause(), key, action);
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
            } else if (isUnavailable(failure) && deadline - System.nanoTime() > RETRY_DELAY_NANOS) {
                CompletableFuture.delayedExecutor(RETRY_DELAY_NANOS, TimeUnit.NANOSECONDS)
                        .execute(() -> attempt(call, deadline, result));
            } else {
                result.completeExceptionally(failure);
            }
        });
    }

    static boolean isUnavailable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if ((t instanceof EtcdException e && e.getErrorCode() == ErrorCode.UNAVAILABLE)
                    || (t instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.UNAVAILABLE)) {
                return true;
            }
        }
        return false;
    }

    /** A backend exception for a call that failed with {@code cause}. */
    static LockBackendException failure(Throwable cause, String key, String action) {
        Throwable root = unwrap(cause);
        if (root instanceof LockBackendException e) {
            return e;
        }
        return new LockBackendException("etcd failed to " + action + " for lock '" + key + "' (backend 'etcd'): "
                + root + ". Check the endpoints, the credentials and the cluster's health (etcdctl endpoint health).",
                key, BACKEND, root);
    }

    /**
     * Whether etcd refused a transaction for holding more operations than its
     * {@code --max-txn-ops} (gRPC INVALID_ARGUMENT, "too many operations in txn request"):
     * refused before it was applied.
     */
    static boolean isTooManyOps(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            boolean invalid = (t instanceof EtcdException e && e.getErrorCode() == ErrorCode.INVALID_ARGUMENT)
                    || (t instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.INVALID_ARGUMENT);
            if (invalid && String.valueOf(t.getMessage()).contains("too many operations in txn request")) {
                return true;
            }
        }
        return false;
    }

    /** Whether etcd said the lease does not exist (expired or revoked). */
    static boolean isLeaseNotFound(Throwable failure) {
        // jetcd reports it as an EtcdException or as the raw gRPC NOT_FOUND status, by call.
        for (Throwable t = failure; t != null; t = t.getCause()) {
            boolean notFound = (t instanceof EtcdException e && e.getErrorCode() == ErrorCode.NOT_FOUND)
                    || (t instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.NOT_FOUND);
            if (notFound && String.valueOf(t.getMessage()).contains("lease not found")) {
                return true;
            }
        }
        return false;
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
