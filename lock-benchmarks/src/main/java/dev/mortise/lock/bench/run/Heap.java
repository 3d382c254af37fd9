package dev.mortise.lock.bench.run;

import java.lang.management.ManagementFactory;

/** Used heap after full collections, for per-object cost estimates. */
final class Heap {

    private Heap() {
    }

    static long usedAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        // Several rounds: finalizable and soft-reachable garbage needs more than one pass.
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
