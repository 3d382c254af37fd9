package dev.mortise.lock.vthreads;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Many virtual threads, each taking one lock once: {@code threads} of them over {@code keys}
 * keys, spread over {@code clients} lock clients (as many service instances; with one client the
 * same-key waiters would queue in that client's own gate, and only one at a time would wait on
 * the server). Each holds its key for a millisecond and checks that no other thread is inside
 * the same key meanwhile. JFR counts the virtual-thread pins meanwhile ({@link PinnedEvents}).
 *
 * <p>Run on a JDK 21 or later: {@code java -cp <this module's classpath>
 * dev.mortise.lock.vthreads.VirtualWaiters <label> <target> <clients> <threads>x<keys>...}, labels
 * and targets as {@link WaiterBackends} takes them, one recorded round per
 * {@code <threads>x<keys>} after an unrecorded warm-up round. Prints per round one
 * {@code VTHREADS} line with the figures, a {@code PINNED} line per Mortise frame that pinned, a {@code FAILURE} line with the
 * first failure if any, and a {@code WARM-UP-PINNED} line per Mortise frame that pinned in the
 * first, unmeasured round; exits 0 once it has printed them, whatever they say.
 */
public final class VirtualWaiters {

    private static final Duration WAIT = Duration.ofSeconds(120);

    private VirtualWaiters() {
    }

    public static void main(String[] args) throws Exception {
        String label = args[0];
        String target = args[1];
        int clientCount = Integer.parseInt(args[2]);
        List<LockClient> clients = new ArrayList<>();
        for (int i = 0; i < clientCount; i++) {
            clients.add(LockClient.builder(WaiterBackends.create(label, target)).defaultLease(Duration.ofSeconds(10))
                    .build());
        }
        // A first, unrecorded round loads and initialises the classes every later round uses:
        // a virtual thread that waits on class loading pins once, which says nothing about waits.
        PinnedEvents warmUp = PinnedEvents.start();
        runAll(clients, new Run(1), 4 * clientCount, 1);
        warmUp.stop();
        for (int i = 3; i < args.length; i++) {
            String[] shape = args[i].split("x");
            measure(label, clients, Integer.parseInt(shape[0]), Integer.parseInt(shape[1]));
        }
        clients.forEach(LockClient::close);
        for (Map.Entry<String, Integer> frame : warmUp.byFrame().entrySet()) {
            System.out.println("WARM-UP-PINNED " + frame.getKey() + " " + frame.getValue());
        }
        System.out.flush();
        System.exit(0); // backend threads that linger must not keep the JVM
    }

    /** One recorded round of {@code threads} threads over {@code keys} keys, printed. */
    private static void measure(String label, List<LockClient> clients, int threads, int keys) throws Exception {
        PinnedEvents pinned = PinnedEvents.start();
        Run run = new Run(keys);
        long start = System.nanoTime();
        runAll(clients, run, threads, keys);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        pinned.stop();
        print(label, threads, keys, clients.size(), run, pinned, millis);
    }

    /** Starts one virtual thread per task and waits for all of them (or for the wait to run out). */
    private static void runAll(List<LockClient> clients, Run run, int threads, int keys) throws Exception {
        ExecutorService executor = newVirtualThreadPerTaskExecutor();
        String prefix = "vthreads:" + UUID.randomUUID() + ":";
        for (int i = 0; i < threads; i++) {
            int n = i;
            executor.execute(() -> run.once(clients.get(n % clients.size()), prefix, n % keys));
        }
        executor.shutdown();
        if (!executor.awaitTermination(WAIT.toSeconds() + 30, TimeUnit.SECONDS)) {
            run.fail(new IllegalStateException("not every thread finished within " + WAIT.plusSeconds(30)));
            executor.shutdownNow();
        }
    }

    private static void print(String label, int threads, int keys, int clients, Run run, PinnedEvents pinned,
                              long millis) {
        System.out.println("VTHREADS backend=" + label + " threads=" + threads + " keys=" + keys + " clients=" + clients
                + " virtual=" + run.allVirtual() + " finished=" + run.finished.get() + " overlaps=" + run.overlaps.get()
                + " failures=" + run.failures.get() + " pinned=" + pinned.total() + " pinnedOnMortisePaths="
                + pinned.onMortisePaths() + " pinnedInMortiseCode=" + pinned.inMortiseCode() + " millis=" + millis);
        for (Map.Entry<String, Integer> frame : pinned.byFrame().entrySet()) {
            System.out.println("PINNED " + frame.getKey() + " " + frame.getValue());
        }
        Throwable first = run.firstFailure.get();
        if (first != null) {
            System.out.println("FAILURE " + first);
            first.printStackTrace(System.out);
        }
    }

    /** Java 21's {@code Executors.newVirtualThreadPerTaskExecutor()}, reached from code built for 17. */
    private static ExecutorService newVirtualThreadPerTaskExecutor() throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }

    /** What the threads of one run found. Thread-safe. */
    private static final class Run {

        final AtomicInteger[] inside;
        final AtomicInteger finished = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();
        final AtomicInteger platform = new AtomicInteger();
        final AtomicReference<Throwable> firstFailure = new AtomicReference<>();

        Run(int keys) {
            inside = new AtomicInteger[keys];
            for (int i = 0; i < keys; i++) {
                inside[i] = new AtomicInteger();
            }
        }

        void once(LockClient client, String prefix, int key) {
            try {
                if (!isVirtual(Thread.currentThread())) {
                    platform.incrementAndGet();
                }
                try (LockLease lease = client.acquire(prefix + key, WAIT)) {
                    if (inside[key].incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    try {
                        Thread.sleep(1);
                        lease.ensureValid();
                    } finally {
                        inside[key].decrementAndGet();
                    }
                }
                finished.incrementAndGet();
            } catch (Throwable e) {
                fail(e);
            }
        }

        void fail(Throwable e) {
            failures.incrementAndGet();
            firstFailure.compareAndSet(null, e);
        }

        boolean allVirtual() {
            return platform.get() == 0;
        }

        private static boolean isVirtual(Thread thread) {
            try {
                return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
            } catch (ReflectiveOperationException e) {
                return false;
            }
        }
    }
}
