package dev.mortise.lock.chaos;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One worker process of a chaos run. It loops until its time is up: acquire a lock on one of
 * the keys, do a fenced read of the key's value from the {@link Ledger}, sleep (the critical
 * section, where the controller injects its faults), write value + 1 carrying the fencing
 * token, release.
 *
 * <p>It deliberately does <em>not</em> call {@code ensureValid()} before writing: the point is
 * to show that the storage-side token check alone rejects a holder that was paused past its
 * lease, as a real client whose check passed just before a GC pause would be.
 *
 * <p>Every step is one line on stdout, {@code EV <epochMillis> <TYPE> <key> <token> <value>},
 * which the controller parses ({@link WorkerEvent}). Arguments, in order: backend, backend
 * target, ledger JDBC URL, worker id, seconds, lease millis, critical-section millis, keys
 * (comma-separated), and optionally {@code unfenced} (the negative control: the ledger accepts
 * every write).
 */
public final class ChaosWorker {

    private ChaosWorker() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 8 && args.length != 9) {
            System.err.println("usage: ChaosWorker backend target ledgerUrl workerId seconds leaseMs csMs key1,key2,..."
                    + " [unfenced]");
            System.exit(2);
        }
        String backend = args[0];
        String target = args[1];
        String ledgerUrl = args[2];
        String worker = args[3];
        long seconds = Long.parseLong(args[4]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
        long csMillis = Long.parseLong(args[6]);
        List<String> keys = Arrays.asList(args[7].split(","));
        boolean fenced = args.length == 8 || !"unfenced".equals(args[8]);

        try (Ledger ledger = Ledger.connect(ledgerUrl, "postgres");
             LockClient locks = LockClient.builder(Backends.create(backend, target, lease)).defaultLease(lease).build()) {
            log("START", "-", 0, 0);
            // Counted from here: a slow JVM or connection start-up must not eat the run.
            long endAt = System.currentTimeMillis() + seconds * 1000;
            while (System.currentTimeMillis() < endAt) {
                String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
                try {
                    cycle(locks, ledger, worker, key, csMillis, fenced);
                } catch (LockTimeoutException e) {
                    log("WAIT_TIMEOUT", key, 0, 0);
                } catch (Exception e) {
                    // Keep looping: a fault on the server side must not end the worker's run.
                    log("ERROR", key, 0, 0);
                    System.err.println("worker " + worker + " on " + key + ": " + e);
                    Thread.sleep(100);
                }
            }
            log("END", "-", 0, 0);
        }
        System.out.flush();
        System.exit(0);
    }

    private static void cycle(LockClient locks, Ledger ledger, String worker, String key, long csMillis,
                              boolean fenced) throws Exception {
        // WAIT tells the controller this worker is blocked in acquire: the victim of the waiter faults.
        log("WAIT", key, 0, 0);
        LockLease lease = locks.acquire(LockSpec.of(key).waitFor(Duration.ofSeconds(10)));
        long token = lease.fencingToken();
        log("ACQUIRED", key, token, 0);
        lease.onLost(event -> log("LOST", key, token, 0));
        try {
            Ledger.Read read = ledger.read(key, token);
            log("READ", key, token, read.value());
            Thread.sleep(csMillis);
            boolean accepted = ledger.write(key, token, worker, read.value(), read.value() + 1, read.at(),
                    fenced);
            log(accepted ? "WRITE_OK" : "WRITE_REJECTED", key, token, read.value() + 1);
        } finally {
            try {
                lease.close();
                log("RELEASED", key, token, 0);
            } catch (RuntimeException e) {
                // Expected after a pause: the lease is gone; say so rather than hide it.
                log("RELEASE_FAILED", key, token, 0);
            }
        }
    }

    /** One event line; synchronized because onLost may fire on a backend thread. */
    static synchronized void log(String type, String key, long token, long value) {
        System.out.println("EV " + System.currentTimeMillis() + " " + type + " " + key + " " + token + " " + value);
        System.out.flush();
    }
}
