package dev.mortise.lock.bench.run;

import java.lang.management.ManagementFactory;

/**
 * Bytes allocated on the heap by the whole JVM so far, from
 * {@code com.sun.management.ThreadMXBean#getTotalThreadAllocatedBytes}: every live and terminated
 * thread, so a window's delta covers the benchmark threads AND the client's I/O threads (Netty
 * event loops, Redisson/Lettuce executors, the core's renewal scheduler). It also covers whatever
 * else runs in the JVM meanwhile (the idle clients of the other subjects, the measuring thread),
 * which is the same small background for every row. Thread-safe.
 */
public final class Allocation {

    private static final com.sun.management.ThreadMXBean THREADS = threads();

    private Allocation() {
    }

    private static com.sun.management.ThreadMXBean threads() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean bean
                && bean.isThreadAllocatedMemorySupported()) {
            if (!bean.isThreadAllocatedMemoryEnabled()) {
                bean.setThreadAllocatedMemoryEnabled(true);
            }
            return bean;
        }
        return null;
    }

    /**
     * CPU time this JVM's process has used so far, in ns (every thread: benchmark, I/O, GC, JIT);
     * -1 if this JVM cannot tell. Printed per cycle beside the allocation: on a loaded machine it
     * is steadier than throughput, though not as steady as allocation.
     */
    public static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }

    /** Total bytes allocated by all threads since the JVM started; -1 if this JVM cannot tell. */
    public static long totalBytes() {
        return THREADS == null ? -1 : THREADS.getTotalThreadAllocatedBytes();
    }
}
