package dev.mortise.lock.tck;

import dev.mortise.lock.DeadlockCycle;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A seeded run of owners taking nested locks in random orders (or in one order), recorded in a
 * {@link WaitForRecorder}: what {@link DeadlockContract}'s property test runs and checks. Owners are
 * threads, several per client; each transaction takes two or three distinct keys of a few, one by one,
 * holding each a few milliseconds; a {@link LockDeadlockException} lets go of everything (the rollback).
 * A sampler looks for cycles of the true graph that last. Not thread-safe: one run per instance.
 */
final class DeadlockPropertyRun {

    /** A victim's report and the window in which its cycle must have been real. */
    record Reported(DeadlockCycle cycle, long waitStarted, long caught) {
    }

    /** A wait that outlived the threshold by the allowance while in a cycle, or an owner's failure. */
    final List<String> violations = new CopyOnWriteArrayList<>();
    final List<Reported> reported = new CopyOnWriteArrayList<>();
    final List<String> holderIds = new CopyOnWriteArrayList<>();
    final WaitForRecorder recorder = new WaitForRecorder();

    private final long seed;
    private final List<String> keys;
    private final boolean shared;
    private final Duration lasting;

    /**
     * @param lasting how long a cycle of the true graph may last before it counts as not broken
     *                (threshold + 2 s)
     */
    DeadlockPropertyRun(long seed, List<String> keys, boolean shared, Duration lasting) {
        this.seed = seed;
        this.keys = keys;
        this.shared = shared;
        this.lasting = lasting;
    }

    /** Runs {@code transactions} per owner, {@code threads} owners per client, in random or one order. */
    void run(List<LockClient> clients, int threads, int transactions, boolean randomOrder) throws InterruptedException {
        List<Thread> owners = new ArrayList<>();
        Random seeds = new Random(seed);
        for (int c = 0; c < clients.size(); c++) {
            for (int t = 0; t < threads; t++) {
                LockClient client = clients.get(c);
                String name = "c" + c + "t" + t;
                Random random = new Random(seeds.nextLong());
                owners.add(new Thread(() -> owner(client, name, random, transactions, randomOrder), "deadlock-run-" + name));
            }
        }
        Thread sampler = new Thread(this::sample, "deadlock-run-sampler");
        sampler.setDaemon(true);
        owners.forEach(Thread::start);
        sampler.start();
        for (Thread owner : owners) {
            owner.join(Duration.ofMinutes(3).toMillis());
            if (owner.isAlive()) {
                violations.add(owner.getName() + " still running after 3 minutes");
                owner.interrupt();
            }
        }
        sampler.interrupt();
        sampler.join();
    }

    private void owner(LockClient client, String name, Random random, int transactions, boolean randomOrder) {
        for (int i = 0; i < transactions; i++) {
            List<String> chosen = new ArrayList<>(keys);
            Collections.shuffle(chosen, random);
            chosen = new ArrayList<>(chosen.subList(0, 2 + random.nextInt(2)));
            if (!randomOrder) {
                Collections.sort(chosen);
            }
            List<LockLease> held = new ArrayList<>();
            try {
                for (String key : chosen) {
                    LockMode mode = shared && random.nextInt(4) == 0 ? LockMode.SHARED : LockMode.EXCLUSIVE;
                    held.add(take(client, name, key, mode));
                    Thread.sleep(5 + random.nextInt(40));
                }
            } catch (LockDeadlockException e) {
                // recorded by take; the rollback follows
            } catch (Exception e) {
                violations.add(name + " failed: " + e);
            } finally {
                for (int h = held.size() - 1; h >= 0; h--) {
                    recorder.holdEnds(name, held.get(h).key());
                    held.get(h).close();
                }
            }
        }
    }

    private LockLease take(LockClient client, String owner, String key, LockMode mode) {
        recorder.waitStarts(owner, key, mode);
        long started = System.nanoTime();
        try {
            LockLease lease = client.acquire(LockSpec.of(key).mode(mode).waitFor(Duration.ofSeconds(30)));
            recorder.waitEnds(owner, key);
            recorder.holdStarts(owner, key, mode, lease.holderId());
            holderIds.add(lease.holderId());
            return lease;
        } catch (LockDeadlockException e) {
            long caught = System.nanoTime();
            recorder.waitEnds(owner, key);
            reported.add(new Reported(e.cycle(), started, caught));
            throw e;
        } catch (RuntimeException e) {
            recorder.waitEnds(owner, key);
            throw e;
        }
    }

    /** Every 20 ms: a cycle of the true graph seen in every sample for longer than {@code lasting} is a violation. */
    private void sample() {
        Set<String> current = Set.of();
        long since = 0;
        while (!Thread.currentThread().isInterrupted()) {
            Set<String> cycle = recorder.cycleNow();
            long now = System.nanoTime();
            if (cycle.isEmpty() || !cycle.equals(current)) {
                current = cycle;
                since = now;
            } else if (now - since > lasting.toNanos()) {
                violations.add("a cycle lasted longer than " + lasting + ": " + cycle);
                current = Set.of();
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Reported cycles that were not a cycle of the true graph at any instant of their window. */
    List<String> falsePositives() {
        List<String> wrong = new ArrayList<>();
        for (Reported report : reported) {
            if (!recorder.wasRealBetween(report.cycle(), report.waitStarted(), report.caught())) {
                wrong.add(report.cycle().describe());
            }
        }
        return wrong;
    }
}
