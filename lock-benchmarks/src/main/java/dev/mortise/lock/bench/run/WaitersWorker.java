package dev.mortise.lock.bench.run;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.bench.subject.MortiseBackends;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One subject of {@link WaitersRun} in a JVM of its own: {@code WaitersWorker group endpoint subject few many}.
 * Warms up, then runs a round of {@code few} and one of {@code many} waiters, and prints
 * {@code RESULT threadsFew threadsMany heapBytesPerWaiter drainSeconds}. Threads count from before the
 * subject's clients were made: everything the library runs while its waiters wait.
 */
public final class WaitersWorker {

    static final String RESULT = "RESULT";
    /** Keys the waiters share out. */
    static final int KEYS = 100;
    private static final Duration WAIT = Duration.ofMinutes(10);

    private WaitersWorker() {
    }

    public static void main(String[] args) throws Exception {
        String group = args[0];
        Endpoints endpoints = new Endpoints().put(group, args[1]);
        int threadsBefore = liveThreads();
        try (WaiterSubject subject = WaiterSubjects.create(args[2], group, endpoints)) {
            round(subject, "warm", 200, false, threadsBefore); // connections, scripts, pools and JIT
            Round few = round(subject, "few", Integer.parseInt(args[3]), false, threadsBefore);
            Round many = round(subject, "many", Integer.parseInt(args[4]), true, threadsBefore);
            System.out.println(String.format(Locale.ROOT, "%s %d %d %.1f %.3f", RESULT, few.threads, many.threads,
                    many.heapPerWaiter, many.drainSeconds));
        }
        // Peer clients leave non-daemon threads behind; the result is printed.
        System.exit(0);
    }

    private record Round(int threads, double heapPerWaiter, double drainSeconds) {
    }

    /** Holds the keys, starts {@code n} waiters on them, measures, lets go, and times the drain. */
    private static Round round(WaiterSubject subject, String round, int n, boolean heap, int threadsBefore)
            throws Exception {
        String prefix = "waiters-" + round + "-" + System.nanoTime() + ":";
        List<AutoCloseable> held = subject.hold(prefix, KEYS);
        Thread.sleep(500);
        long heapBefore = heap ? Heap.usedAfterGc() : 0;
        WaiterSubject.Waits waits = subject.startWaiting(prefix, KEYS, n, WAIT);
        Thread.sleep(2_000); // every wait sent, answered busy, and asleep
        int threads = liveThreads() - threadsBefore;
        long heapAfter = heap ? Heap.usedAfterGc() : 0;
        if (waits.done() > 0) {
            throw new IllegalStateException(waits.done() + " of " + n + " waiters finished while the keys were held");
        }
        long start = System.nanoTime();
        for (AutoCloseable hold : held) {
            hold.close();
        }
        waits.awaitAll(WAIT);
        double drain = (System.nanoTime() - start) / 1e9;
        return new Round(threads, heap ? (heapAfter - heapBefore) / (double) n : 0, drain);
    }

    private static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** Mortise's client on a group's backend, built as a user would. */
    static LockClient client(String group, Endpoints endpoints, List<AutoCloseable> after) {
        MortiseBackends.Built built = MortiseBackends.create(group, endpoints);
        after.add(built.afterClient());
        return LockClient.builder(built.backend()).build();
    }

    /** The holder's leases as closeables. */
    static List<AutoCloseable> holdAll(LockClient holder, String prefix, int keys) {
        List<AutoCloseable> held = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            LockLease lease = holder.tryAcquire(prefix + k).orElseThrow(
                    () -> new IllegalStateException("a fresh benchmark key was busy"));
            held.add(lease::close);
        }
        return held;
    }
}
