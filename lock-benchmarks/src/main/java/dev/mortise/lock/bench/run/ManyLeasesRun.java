package dev.mortise.lock.bench.run;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.bench.common.Endpoints;
import dev.mortise.lock.bench.common.ManyLeasesResult;
import dev.mortise.lock.bench.subject.MortiseBackends;
import dev.mortise.lock.tck.CountingBackend;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Many leases held at once under the watchdog: one client acquires N distinct keys with
 * the renewed lease, then we count, over a few renewal periods, the renewal calls the core
 * makes into the backend and (on Redis) the requests the server receives (see {@link ServerRequests}), and we estimate
 * the heap each held lease costs. On Redis, Redisson's watchdog gets the same treatment.
 */
public final class ManyLeasesRun {

    private static final int THREADS = 4;

    private final Timing timing;
    private final Notes notes;

    public ManyLeasesRun(Timing timing, Notes notes) {
        this.timing = timing;
        this.notes = notes;
    }

    public List<ManyLeasesResult> run(String group, Endpoints endpoints) {
        List<ManyLeasesResult> results = new ArrayList<>();
        try {
            results.add(mortise(group, endpoints));
        } catch (Exception e) {
            notes.finding("many leases " + group + "/mortise failed: " + e);
        }
        if (group.equals("redis")) {
            try {
                results.add(redisson(endpoints.get("redis")));
            } catch (Exception e) {
                notes.finding("many leases redis/redisson-rlock failed: " + e);
            }
        }
        for (ManyLeasesResult r : results) {
            notes.progress(String.format("  %-28s %,d leases  acquire %.1f s  renew calls/period %.2f  "
                            + "server requests/period %.1f (idle %.1f)  heap %.0f B/lease", r.id(), r.leases(),
                    r.acquireSeconds(), r.renewCallsPerPeriod(), r.serverCommandsPerPeriod(),
                    r.serverBaselinePerPeriod(), r.heapBytesPerLease()));
        }
        return results;
    }

    /** Runs {@code body(i)} for i in [0, n) on a few threads. */
    private interface IndexedTask {
        void run(int index) throws Exception;
    }

    private static void parallel(int n, IndexedTask task) throws Exception {
        List<Thread> threads = new ArrayList<>();
        Exception[] failure = new Exception[1];
        for (int t = 0; t < THREADS; t++) {
            int first = t;
            Thread thread = new Thread(() -> {
                try {
                    for (int i = first; i < n; i += THREADS) {
                        task.run(i);
                    }
                } catch (Exception e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                }
            }, "leases-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure[0] != null) {
            throw failure[0];
        }
    }

    private ManyLeasesResult mortise(String group, Endpoints endpoints) throws Exception {
        MortiseBackends.Built built = MortiseBackends.create(group, endpoints);
        CountingBackend counting = new CountingBackend(built.backend());
        Duration period = timing.leasePeriod();
        int n = timing.leases();
        LockClient client = LockClient.builder(counting).defaultLease(period.multipliedBy(3)).build();
        try {
            for (int i = 0; i < 100; i++) {
                client.tryAcquire("leases-warm:" + i).ifPresent(LockLease::close);
            }
            // One hold kept across a renewal, so the renewal's first use (on Redis: the server learning
            // the renew script) is warm-up too, not part of the steady state measured below.
            try (LockLease warm = client.tryAcquire("leases-warm:renewed").orElseThrow()) {
                Thread.sleep(period.multipliedBy(3).dividedBy(2).toMillis());
            }
            Thread.sleep(1000); // let pools finish opening connections: that traffic is not renewal
            double baseline = requestsPerPeriod(group, endpoints.get(group));
            long before = Heap.usedAfterGc();
            long start = System.nanoTime();
            AtomicReferenceArray<LockLease> leases = new AtomicReferenceArray<>(n);
            parallel(n, i -> leases.set(i, client.tryAcquire("leases:" + i)
                    .orElseThrow(() -> new IllegalStateException("lease " + i + " was busy"))));
            double acquireSeconds = (System.nanoTime() - start) / 1e9;
            long after = Heap.usedAfterGc();

            int renewBefore = counting.renewCalls.get();
            double commands = requestsPerPeriod(group, endpoints.get(group));
            int renewCalls = counting.renewCalls.get() - renewBefore;

            int invalid = 0;
            for (int i = 0; i < n; i++) {
                if (!leases.get(i).isValid()) {
                    invalid++;
                }
            }
            if (invalid > 0) {
                notes.finding("many leases " + group + "/mortise: " + invalid + " of " + n
                        + " leases were no longer valid after " + timing.periods() + " renewal periods");
            }
            parallel(n, i -> leases.get(i).close());
            return new ManyLeasesResult(group, group + "/mortise", "Mortise", n, period.toMillis() / 1000.0,
                    renewCalls / (double) timing.periods(), commands < 0 ? -1 : commands - baseline, baseline,
                    (after - before) / (double) n, acquireSeconds);
        } finally {
            client.close();
            built.afterClient().close();
        }
    }

    /** Requests the server receives per renewal period, over a few periods; -1 if it cannot be counted. */
    private double requestsPerPeriod(String group, String endpoint) throws Exception {
        long requests = -1;
        try (ServerRequests counter = ServerRequests.start(group, endpoint)) {
            Thread.sleep(timing.leasePeriod().multipliedBy(timing.periods()).toMillis());
            if (counter != null) {
                requests = counter.stop();
            }
        }
        return requests < 0 ? -1 : requests / (double) timing.periods();
    }

    private ManyLeasesResult redisson(String address) throws Exception {
        Duration period = timing.leasePeriod();
        int n = timing.leases();
        Config config = new Config();
        config.useSingleServer().setAddress(address);
        config.setLockWatchdogTimeout(period.multipliedBy(3).toMillis());
        RedissonClient client = Redisson.create(config);
        try {
            for (int i = 0; i < 100; i++) {
                var lock = client.getLock("rl-leases-warm:" + i);
                lock.lock();
                lock.unlock();
            }
            double baseline = requestsPerPeriod("redis", address);
            long before = Heap.usedAfterGc();
            long start = System.nanoTime();
            // The RLock objects are dropped: what stays on the heap is Redisson's own renewal state.
            parallel(n, i -> client.getLock("rl-leases:" + i).lock());
            double acquireSeconds = (System.nanoTime() - start) / 1e9;
            long after = Heap.usedAfterGc();
            double commands = requestsPerPeriod("redis", address);
            // forceUnlock also stops each lock's renewal, so shutdown finds no renewal in flight.
            parallel(n, i -> client.getLock("rl-leases:" + i).forceUnlock());
            return new ManyLeasesResult("redis", "redis/redisson-rlock", "Redisson RLock", n,
                    period.toMillis() / 1000.0, -1, commands - baseline, baseline, (after - before) / (double) n,
                    acquireSeconds);
        } finally {
            client.shutdown();
        }
    }
}
