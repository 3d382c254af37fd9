package dev.mortise.lock.integration;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The concurrent form of {@link RegistryExpireRaceTest}: threads obtain, lock, renew and unlock
 * a few keys while another thread expires every unheld lock as fast as it can. Whatever object a
 * thread obtained, once it holds the key the registry knows it: {@code renewLock(key)} works and
 * {@code obtain(key).unlock()} releases it; no two threads hold a key at once; nothing is left
 * held at the end.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RegistryExpireConcurrencyTest {

    private static final int THREADS = 4;
    private static final int ROUNDS = 300;

    @Test
    void locksObtainedAcrossExpiriesStayTheRegistrysOnceLocked() throws Exception {
        LocalLockServer server = new LocalLockServer();
        try (LockClient client = LockClient.builder(new LocalLockBackend(server)).build();
             LockClient otherProcess = LockClient.builder(new LocalLockBackend(server)).build()) {
            MortiseLockRegistry registry = new MortiseLockRegistry(client);
            List<String> keys = List.of("expire-" + UUID.randomUUID(), "εxpire-" + UUID.randomUUID(),
                    UUID.randomUUID() + "/expire");
            Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
            keys.forEach(k -> inside.put(k, new AtomicInteger()));
            Queue<String> failures = new ConcurrentLinkedQueue<>();
            AtomicBoolean done = new AtomicBoolean();
            long seed = System.nanoTime();

            ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
            try {
                Future<?> expirer = pool.submit(() -> {
                    while (!done.get()) {
                        registry.expireUnusedOlderThan(0);
                        Thread.yield();
                    }
                });
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    SplittableRandom random = new SplittableRandom(seed + t);
                    workers.add(pool.submit(() -> work(registry, keys, inside, failures, random)));
                }
                for (Future<?> worker : workers) {
                    worker.get();
                }
                done.set(true);
                expirer.get();
            } finally {
                done.set(true);
                pool.shutdownNow();
            }

            assertThat(failures).as("seed %d", seed).isEmpty();
            for (String key : keys) {
                Optional<LockLease> taken = otherProcess.tryAcquire(key);
                taken.ifPresent(LockLease::close);
                assertThat(taken).as("'%s' is free at the end (seed %d)", key, seed).isPresent();
            }
        }
    }

    private static void work(MortiseLockRegistry registry, List<String> keys, Map<String, AtomicInteger> inside,
                             Queue<String> failures, SplittableRandom random) {
        for (int round = 0; round < ROUNDS; round++) {
            String key = keys.get(random.nextInt(keys.size()));
            Lock lock = registry.obtain(key);
            if (random.nextBoolean()) {
                Thread.yield(); // widen the window between obtain and lock
            }
            boolean locked;
            try {
                locked = lock.tryLock(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (!locked) {
                failures.add("round " + round + ": '" + key + "' not granted within 10 s (a hold left behind?)");
                continue;
            }
            check(registry, key, inside.get(key), failures, round);
            try {
                registry.obtain(key).unlock();
            } catch (RuntimeException e) {
                failures.add("round " + round + ": obtain('" + key + "').unlock() threw " + e);
                lock.unlock(); // release through the object that locked, so the run goes on
            }
        }
    }

    private static void check(MortiseLockRegistry registry, String key, AtomicInteger inside, Queue<String> failures,
                              int round) {
        if (inside.incrementAndGet() != 1) {
            failures.add("round " + round + ": two threads hold '" + key + "'");
        }
        try {
            registry.renewLock(key);
        } catch (RuntimeException e) {
            failures.add("round " + round + ": renewLock('" + key + "') threw " + e);
        }
        inside.decrementAndGet();
    }
}
