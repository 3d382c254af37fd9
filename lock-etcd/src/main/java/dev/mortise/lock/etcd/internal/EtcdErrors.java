package dev.mortise.lock.etcd.internal;

import dev.mortise.lock.LockBackendException;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * What a jetcd failure means: which answers are worth retrying (UNAVAILABLE), which say a
 * lease is gone or a transaction too large, and the {@link LockBackendException} a failure
 * becomes, naming the key, the backend and the fix. jetcd reports the same condition either
 * as an {@link EtcdException} or as the raw gRPC status, by call, so each test looks at both
 * along the cause chain. Stateless.
 */
final class EtcdErrors {

    static final String BACKEND = "etcd";

    private EtcdErrors() {
    }

    /** Whether etcd answered UNAVAILABLE ("no leader", "leader changed", a member going down). */
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

    /** {@code t} without the completion and execution wrappers futures put around a failure. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
