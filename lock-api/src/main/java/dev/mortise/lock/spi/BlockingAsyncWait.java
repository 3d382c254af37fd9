package dev.mortise.lock.spi;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * An asynchronous wait made of a backend's blocking {@link LockBackend#acquire}, run on the bounded
 * pool {@link AsyncWaits#blocking()}: for backends whose native wait (a writer's marker, a queue
 * node) only exists in that blocking form. It parks one pool thread for as long as the server keeps
 * the request waiting; the time it queues for a thread counts against its wait. Completing the
 * answer in any way interrupts the wait (the backend cleans up as for any interrupt); a grant that
 * arrives after that is released.
 */
final class BlockingAsyncWait extends AsyncWait implements Runnable {

    private Thread runner; // guarded by this: the pool thread inside acquire, or null

    private BlockingAsyncWait(LockBackend backend, LockRequest request, Duration wait) {
        super(backend, request, wait);
    }

    static CompletableFuture<Optional<Grant>> start(LockBackend backend, LockRequest request, Duration wait) {
        BlockingAsyncWait waiting = new BlockingAsyncWait(backend, request, wait);
        AsyncWaits.blocking().execute(waiting);
        return waiting.answer;
    }

    @Override
    public void run() {
        synchronized (this) {
            if (answer.isDone()) {
                return;
            }
            runner = Thread.currentThread();
        }
        Optional<Grant> grant = Optional.empty();
        Throwable failure = null;
        try {
            grant = backend.acquire(request, Duration.ofNanos(Math.max(0, Deadlines.left(deadline))));
        } catch (Throwable e) {
            failure = e;
        }
        synchronized (this) {
            runner = null;
            Thread.interrupted(); // an interrupt sent for this wait must not reach the pool's next task
        }
        if (failure != null) {
            answer.completeExceptionally(failure);
        } else {
            grant(grant);
        }
    }

    @Override
    synchronized void stop() {
        if (runner != null) {
            runner.interrupt();
        }
    }
}
