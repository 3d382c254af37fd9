package dev.mortise.lock.zookeeper.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads a ZooKeeper backend's asynchronous waits take their steps on. Curator's calls wait out
 * a lost connection (up to the operation timeout); a step whose call was in flight when the
 * connection dropped does so here, so it never holds one of the few threads that every other
 * asynchronous wait and callback of the JVM shares. Four daemon threads, started on use and ended
 * after a minute idle; work beyond them queues.
 */
public final class WaitThreads {

    /** Threads per backend. */
    public static final int THREADS = 4;

    private WaitThreads() {
    }

    public static ExecutorService pool() {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, "mortise-zookeeper-wait-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
