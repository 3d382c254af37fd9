package dev.mortise.samples.demo;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.samples.account.Account;
import dev.mortise.samples.account.AccountService;
import dev.mortise.samples.account.AccountStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many threads of two replicas withdrawing 1 at a time from the same few accounts, as a
 * read-modify-write (read the balance, work, write balance − 1), once without a lock and
 * once under the account's lock with a fenced write. A lost update is a withdrawal whose
 * write another one overwrote: the final balance is higher than the withdrawals made say.
 */
final class ContendedWithdrawals {

    static final long INITIAL_BALANCE = 1_000_000;
    private static final Duration LOCK_WAIT = Duration.ofSeconds(30);

    private final AccountStore store;
    private final DemoProperties settings;

    ContendedWithdrawals(AccountStore store, DemoProperties settings) {
        this.store = store;
        this.settings = settings;
    }

    DemoReport.RunFigures run(List<Replica> replicas, List<String> accounts, boolean locked) throws Exception {
        accounts.forEach(id -> store.resetBalance(id, INITIAL_BALANCE));
        Map<String, AtomicLong> applied = new ConcurrentHashMap<>();
        accounts.forEach(id -> applied.put(id, new AtomicLong()));
        AtomicInteger fenced = new AtomicInteger();
        List<Long> waits = Collections.synchronizedList(new ArrayList<>());
        int threads = replicas.size() * settings.threadsPerReplica();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        try {
            for (int r = 0; r < replicas.size(); r++) {
                for (int t = 0; t < settings.threadsPerReplica(); t++) {
                    Replica replica = replicas.get(r);
                    int offset = r * settings.threadsPerReplica() + t;
                    done.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < settings.operationsPerThread(); i++) {
                            String id = accounts.get((offset + i) % accounts.size());
                            if (locked) {
                                long begin = System.nanoTime();
                                try (LockLease lease = replica.locks().acquire(
                                        LockSpec.of(AccountService.LOCK_PREFIX + id).waitFor(LOCK_WAIT))) {
                                    waits.add(System.nanoTime() - begin);
                                    if (withdrawFenced(id, lease)) {
                                        applied.get(id).incrementAndGet();
                                    } else {
                                        fenced.incrementAndGet();
                                    }
                                }
                            } else {
                                withdrawUnfenced(id);
                                applied.get(id).incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
            }
            long begin = System.nanoTime();
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            Duration elapsed = Duration.ofNanos(System.nanoTime() - begin);
            long lost = 0;
            long operations = 0;
            for (String id : accounts) {
                long balance = store.find(id).map(Account::balance).orElseThrow();
                long withdrawn = applied.get(id).get();
                operations += withdrawn;
                lost += balance - (INITIAL_BALANCE - withdrawn);
            }
            List<Long> sorted = new ArrayList<>(waits);
            Collections.sort(sorted);
            return new DemoReport.RunFigures((int) operations + fenced.get(), lost, fenced.get(),
                    percentile(sorted, 0.50), percentile(sorted, 0.99), elapsed);
        } finally {
            pool.shutdownNow();
        }
    }

    /** One read-modify-write without the fence check (what code without a lock does). */
    private boolean withdrawUnfenced(String id) throws InterruptedException {
        long balance = store.find(id).map(Account::balance).orElseThrow();
        pause(settings.work());
        store.writeUnfenced(id, balance - 1);
        return true;
    }

    /** One read-modify-write in a transaction whose first statement is the fence check of {@code lease}. */
    private boolean withdrawFenced(String id, dev.mortise.lock.LockLease lease) {
        return store.withdrawOneFenced(id, lease, () -> {
            try {
                pause(settings.work());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        });
    }

    static void pause(Duration d) throws InterruptedException {
        if (!d.isZero()) {
            Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
        }
    }

    private static Duration percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return Duration.ZERO;
        }
        int index = (int) Math.ceil(p * sorted.size()) - 1;
        return Duration.ofNanos(sorted.get(Math.max(0, Math.min(index, sorted.size() - 1))));
    }
}
