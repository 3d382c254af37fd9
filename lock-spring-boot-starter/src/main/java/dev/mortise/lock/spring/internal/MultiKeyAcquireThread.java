package dev.mortise.lock.spring.internal;

import dev.mortise.lock.LockLease;

import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The asynchronous acquire of a multi-key call, until the client has one
 * ({@code acquireAllAsync}, issue 32): the blocking {@code acquireAll} on a thread started for this
 * call alone and ended with it, so no pool thread waits and no lease is left in the
 * {@link dev.mortise.lock.LockContext} of a thread that runs other work. Cancelling the future
 * interrupts the wait; a lease granted after that is closed.
 */
final class MultiKeyAcquireThread {

    private MultiKeyAcquireThread() {
    }

    /** Runs {@code acquire} (events named {@code name}) on a thread of its own. */
    static CompletableFuture<Optional<LockLease>> start(Supplier<Optional<LockLease>> acquire, String name) {
        CompletableFuture<Optional<LockLease>> answer = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try (AcquiringName ignored = AcquiringName.set(name)) {
                Optional<LockLease> lease = acquire.get();
                if (!answer.complete(lease)) {
                    lease.ifPresent(PendingAcquire::closeQuietly);
                }
            } catch (RuntimeException | Error e) {
                answer.completeExceptionally(e);
            }
        }, "mortise-lock-acquire-all");
        thread.setDaemon(true);
        answer.whenComplete((lease, failure) -> {
            if (failure instanceof CancellationException) {
                thread.interrupt();
            }
        });
        thread.start();
        return answer;
    }
}
