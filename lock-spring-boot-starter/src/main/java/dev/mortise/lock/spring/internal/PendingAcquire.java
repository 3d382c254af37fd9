package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockLease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * One asynchronous acquire of an annotated call on {@code LockClient.acquireAsync}: no thread
 * waits for it. Its {@link #answer()} is completed on Mortise's shared threads (callers hop to a
 * thread of their own before running the method): with the hold, empty for SKIP, or
 * exceptionally as the blocking {@link LockedCall#acquire} throws. {@link #cancel()} withdraws
 * the request (from the client's queue or the server); a grant that races it is closed by the
 * client, or, once turned into a hold, delivered all the same, for the caller's {@link AsyncHold}
 * to release. Observed, and its events named ({@link AcquiringName#expect}), as the blocking
 * acquire is. Thread-safe.
 */
final class PendingAcquire {

    private static final Logger log = LoggerFactory.getLogger(PendingAcquire.class);

    private final CompletableFuture<Optional<LockLease>> request;
    private final CompletableFuture<Optional<LockedCall.Held>> answer;

    private PendingAcquire(CompletableFuture<Optional<LockLease>> request,
                           CompletableFuture<Optional<LockedCall.Held>> answer) {
        this.request = request;
        this.answer = answer;
    }

    /** Sends {@code call}'s request as {@code owner}. Never throws: a failure is in the answer. */
    static PendingAcquire start(LockedCall call, String owner) {
        LockObserver.Acquisition observed = call.observe();
        Runnable named = AcquiringName.expect(call.backendName(), call.keys().keys(), call.operation().name());
        CompletableFuture<Optional<LockLease>> request;
        try {
            request = call.requestAsync(owner);
        } catch (RuntimeException | Error e) {
            named.run();
            call.notAcquired(observed, e);
            return new PendingAcquire(CompletableFuture.failedFuture(e), CompletableFuture.failedFuture(e));
        }
        CompletableFuture<Optional<LockedCall.Held>> answer = request.handle((lease, failure) -> {
            named.run();
            if (failure != null) {
                Throwable cause = unwrap(failure);
                call.notAcquired(observed, cause);
                throw new CompletionException(cause);
            }
            return call.granted(observed, lease, owner);
        });
        return new PendingAcquire(request, answer);
    }

    /** The hold, empty for SKIP, or the failure (never wrapped in a {@code CompletionException}: see {@link #unwrap}). */
    CompletableFuture<Optional<LockedCall.Held>> answer() {
        return answer;
    }

    /** Withdraws the request if it is still under way; a no-op once answered. */
    void cancel() {
        request.cancel(false);
    }

    /** The failure a dependent stage saw, without the {@code CompletionException} around it. */
    static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /**
     * {@code request}'s lease as an optional, in a future whose cancel cancels {@code request}; a
     * lease that arrives after that cancel is closed, never leaked.
     */
    static CompletableFuture<Optional<LockLease>> optional(CompletableFuture<LockLease> request) {
        return leaseOf(request, Optional::of);
    }

    /**
     * {@code request}'s answer as the call's lease ({@code lease}: a multi-key lease as one, say), in a
     * future whose cancel cancels {@code request}; a lease that arrives after that cancel is closed.
     */
    static <T> CompletableFuture<Optional<LockLease>> leaseOf(CompletableFuture<T> request,
                                                             Function<T, Optional<LockLease>> lease) {
        CompletableFuture<Optional<LockLease>> answer = new CompletableFuture<>();
        request.whenComplete((value, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(failure);
                return;
            }
            Optional<LockLease> granted = lease.apply(value);
            if (!answer.complete(granted)) {
                granted.ifPresent(PendingAcquire::closeQuietly);
            }
        });
        answer.whenComplete((given, failure) -> {
            if (failure instanceof CancellationException) {
                request.cancel(false);
            }
        });
        return answer;
    }

    /** Closes a lease nobody takes any more (its call was cancelled). */
    static void closeQuietly(LockLease lease) {
        try {
            lease.close();
        } catch (RuntimeException e) {
            log.debug("Closing lock '{}' granted after its call was cancelled: {}", lease.key(), e.toString());
        }
    }
}
