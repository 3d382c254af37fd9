package dev.mortise.lock.spring.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that acquire the locks of methods returning {@code Mono}, {@code Flux} or
 * {@code CompletionStage}. The core puts every lease on the stack of the thread that
 * acquired it ({@link dev.mortise.lock.LockContext}) until it is closed; an async hold
 * outlives the call, so acquiring on an application thread (a request or Reactor thread
 * reused by unrelated work) would show the lease and its fencing token to whatever runs
 * there next. These threads run nothing but acquires, so nobody looks at their stacks.
 * Daemon threads, created on demand and ended after a minute idle (acquires may wait up
 * to their waitFor, so the pool is not bounded).
 */
final class AsyncAcquirer {

    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ExecutorService POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "mortise-lock-acquire-" + THREADS.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });

    private AsyncAcquirer() {
    }

    /** Runs {@code acquire} on an acquiring thread; cancelling the future with interrupt stops its wait. */
    static Future<?> submit(Runnable acquire) {
        return POOL.submit(acquire);
    }
}
