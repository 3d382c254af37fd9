package dev.mortise.lock.bench.run;

import dev.mortise.lock.DeadlockDetection;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.bench.subject.MortiseBackends;
import dev.mortise.lock.spi.LockBackend;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client process of {@link DeadlocksRun}: {@code DeadlocksWorker group endpoint on|off}. Builds a
 * Mortise client on the group's backend (counted by {@link CountingBackend}), with deadlock detection
 * at its default setting or off, prints {@code READY}, then serves commands from standard input, one a
 * line, on one thread (so the holds of {@code HOLD} are the owner of the wait of {@code WAIT}):
 * <ul>
 *   <li>{@code LOAD prefix threads millis keys holdMillis}: {@code threads} threads, each taking two of
 *       {@code prefix0 … prefix(keys-1)} at random in key order (never a deadlock), holding them
 *       {@code holdMillis} and letting go, for {@code millis}; prints
 *       {@code LOADED ops publishes requests acquireNanos…}</li>
 *   <li>{@code HOLD key}: takes the key; prints {@code HELD}</li>
 *   <li>{@code WAIT key}: waits for the key; once everything is let go prints {@code VICTIM nanos} (it
 *       ended with {@link LockDeadlockException} after {@code nanos}) or {@code GRANTED nanos} (or {@code TIMEOUT nanos}: nothing ended it within 30 s)</li>
 *   <li>{@code QUIT}</li>
 * </ul>
 * In-process (the local group) the same loop runs on a thread of the run's JVM ({@link DeadlockParty}).
 */
public final class DeadlocksWorker {

    static final Duration WAIT = Duration.ofSeconds(30);

    private final LockClient client;
    private final CountingBackend counted;
    private final List<LockLease> held = new ArrayList<>();

    DeadlocksWorker(LockBackend backend, boolean detection) {
        this.counted = new CountingBackend(backend);
        this.client = LockClient.builder(counted)
                .deadlockDetection(detection ? DeadlockDetection.DEFAULT : DeadlockDetection.off()).build();
    }

    public static void main(String[] args) throws Exception {
        String group = args[0];
        MortiseBackends.Built built = MortiseBackends.create(group, new Endpoints().put(group, args[1]));
        DeadlocksWorker worker = new DeadlocksWorker(built.backend(), args[2].equals("on"));
        try {
            System.out.println("READY");
            System.out.flush();
            worker.serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), System.out);
        } finally {
            worker.close();
            built.afterClient().close();
        }
        System.exit(0);
    }

    /** Serves commands until QUIT or the end of {@code in}; closes nothing. */
    void serve(BufferedReader in, PrintStream out) throws Exception {
        for (String line = in.readLine(); line != null && !line.equals("QUIT"); line = in.readLine()) {
            String[] f = line.split(" ");
            String answer = switch (f[0]) {
                case "LOAD" -> load(f[1], Integer.parseInt(f[2]), Long.parseLong(f[3]), Integer.parseInt(f[4]),
                        Long.parseLong(f[5]));
                case "HOLD" -> {
                    held.add(client.acquire(f[1], WAIT));
                    yield "HELD";
                }
                case "WAIT" -> waitFor(f[1]);
                default -> throw new IllegalArgumentException("unknown command " + line);
            };
            out.println(answer);
            out.flush();
        }
    }

    void close() {
        client.close();
    }

    private String waitFor(String key) {
        long start = System.nanoTime();
        String outcome;
        try {
            held.add(client.acquire(key, WAIT));
            outcome = "GRANTED " + (System.nanoTime() - start);
        } catch (LockDeadlockException e) {
            outcome = "VICTIM " + (System.nanoTime() - start);
        } catch (LockTimeoutException e) {
            outcome = "TIMEOUT " + (System.nanoTime() - start);
        }
        for (int i = held.size() - 1; i >= 0; i--) {
            held.get(i).close();
        }
        held.clear();
        return outcome;
    }

    private String load(String prefix, int threads, long millis, int keys, long holdMillis) throws Exception {
        long requestsBefore = counted.requests();
        long publishesBefore = counted.publishes();
        AtomicLong ops = new AtomicLong();
        List<Latencies> latencies = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        Exception[] failure = new Exception[1];
        long deadline = System.nanoTime() + millis * 1_000_000;
        for (int t = 0; t < threads; t++) {
            Latencies mine = new Latencies();
            latencies.add(mine);
            Random random = new Random(System.nanoTime() + t);
            Thread thread = new Thread(() -> {
                try {
                    while (System.nanoTime() - deadline < 0) {
                        int a = random.nextInt(keys);
                        int b = (a + 1 + random.nextInt(keys - 1)) % keys;
                        nested(prefix + Math.min(a, b), prefix + Math.max(a, b), holdMillis, mine);
                        ops.incrementAndGet();
                    }
                } catch (Exception e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                }
            }, "deadlocks-load-" + t);
            running.add(thread);
            thread.start();
        }
        for (Thread thread : running) {
            thread.join();
        }
        if (failure[0] != null) {
            throw failure[0];
        }
        StringBuilder line = new StringBuilder("LOADED ").append(ops.get()).append(' ')
                .append(counted.publishes() - publishesBefore).append(' ').append(counted.requests() - requestsBefore);
        latencies.forEach(l -> l.forEach(nanos -> line.append(' ').append(nanos)));
        return line.toString();
    }

    /** Takes {@code first} then {@code second}, each acquire timed, holds both, lets go in reverse order. */
    private void nested(String first, String second, long holdMillis, Latencies timed) throws InterruptedException {
        long start = System.nanoTime();
        try (LockLease outer = client.acquire(first, WAIT)) {
            timed.add(System.nanoTime() - start);
            start = System.nanoTime();
            try (LockLease inner = client.acquire(second, WAIT)) {
                timed.add(System.nanoTime() - start);
                Thread.sleep(holdMillis);
            }
        }
    }
}
