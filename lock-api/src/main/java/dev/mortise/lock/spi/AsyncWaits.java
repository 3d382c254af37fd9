package dev.mortise.lock.spi;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads every asynchronous wait of this JVM shares ({@link LockBackend#acquireAsync}, and the
 * core's {@code acquireAsync} continuations): a small bounded pool that runs attempts and
 * completions (which may block on I/O up to a backend's operation timeout), one timer thread that
 * schedules retries and deadlines, and a pool for backends whose wait can only be a blocking
 * {@link LockBackend#acquire} (see {@link LockBackend#acquireAsync}). All are daemon threads, started
 * on first use and ended again after a minute idle, so neither a client nor its backend owns them
 * and none keeps the JVM alive. The executor and the timer do not grow with the number of waiters
 * (work beyond them queues). The blocking pool does: one thread per blocking server wait under way,
 * because a request queued behind other requests' waits would not reach the server at all — a free
 * key would time out behind busy ones. The core's key gate keeps that to one exclusive request per
 * key per client; a backend with a native asynchronous wait uses none.
 *
 * <p>Backend writers use {@link #executor()} for the work of an asynchronous wait and
 * {@link #scheduler()} only to schedule it (a task on the timer thread hands its work to the
 * executor and returns at once). Thread-safe.
 */
public final class AsyncWaits {

    /** Threads that run attempts and completions. */
    public static final int EXECUTOR_THREADS = 4;
    private static final ThreadPoolExecutor EXECUTOR = pool("mortise-async-", EXECUTOR_THREADS);
    private static final ThreadPoolExecutor BLOCKING = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new java.util.concurrent.SynchronousQueue<>(), daemons("mortise-async-wait-"));
    private static final ScheduledThreadPoolExecutor SCHEDULER = timer();

    private AsyncWaits() {
    }

    /** The bounded pool that runs asynchronous attempts and completions. */
    public static Executor executor() {
        return EXECUTOR;
    }

    /** The one timer thread: schedule here, run the work on {@link #executor()}. */
    public static ScheduledExecutorService scheduler() {
        return SCHEDULER;
    }

    /** The pool for blocking {@link LockBackend#acquire} calls made for async callers: a thread per call under way. */
    static Executor blocking() {
        return BLOCKING;
    }

    private static ThreadPoolExecutor pool(String prefix, int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), daemons(prefix));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemons("mortise-async-timer-"));
        timer.setRemoveOnCancelPolicy(true);
        timer.setKeepAliveTime(60, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        return timer;
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new SharedThread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Whether the calling thread is one of these shared threads: work it does for one caller (a lease it
     * builds, say) must not stay attached to it, since its next task is anyone's.
     */
    public static boolean onSharedThread() {
        return Thread.currentThread() instanceof SharedThread;
    }

    /** A thread of these pools (so {@link #onSharedThread()} can tell). */
    private static final class SharedThread extends Thread {
        SharedThread(Runnable task, String name) {
            super(task, name);
        }
    }
}
