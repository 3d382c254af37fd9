package dev.mortise.samples.demo;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.samples.account.Account;
import dev.mortise.samples.account.AccountService;
import dev.mortise.samples.account.AccountStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Seed 004's zombie client, once per demo account: replica A takes the lock with a short
 * explicit lease and pauses (a long GC pause) past it; replica B then gets the lock with a
 * higher fencing token and writes; A wakes up and writes with its old token. The lock
 * cannot stop A (A does not know it was paused); the storage's fence guard does (its check is
 * the first statement of A's write transaction, and B's token is higher).
 *
 * <p>A deliberately does not call {@code ensureValid()} before writing: a pause can fall
 * between that check and the write, which is exactly why the storage must check the token.
 */
final class StaleWriteScenario {

    /** The attempts and rejections. */
    record Outcome(int attempted, int rejected) {
    }

    private static final Duration LOCK_WAIT = Duration.ofSeconds(10);

    private final AccountStore store;
    private final DemoProperties settings;

    StaleWriteScenario(AccountStore store, DemoProperties settings) {
        this.store = store;
        this.settings = settings;
    }

    Outcome run(Replica paused, Replica successor, List<String> accounts) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(accounts.size() * 2);
        try {
            List<Future<Boolean>> staleWrites = new ArrayList<>();
            for (String id : accounts) {
                String key = AccountService.LOCK_PREFIX + id;
                CountDownLatch aHolds = new CountDownLatch(1);
                CountDownLatch bWrote = new CountDownLatch(1);
                staleWrites.add(pool.submit(() -> {
                    LockLease lease = paused.locks().acquire(LockSpec.of(key).waitFor(LOCK_WAIT)
                            .lease(settings.staleLease()));
                    try {
                        long balance = balance(id);
                        aHolds.countDown();
                        ContendedWithdrawals.pause(settings.stalePause());   // the "GC pause"
                        bWrote.await(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                        return store.writeFenced(id, balance - 1, lease);
                    } finally {
                        closeExpired(lease);
                    }
                }));
                pool.submit(() -> {
                    aHolds.await();
                    try (LockLease lease = successor.locks().acquire(LockSpec.of(key).waitFor(LOCK_WAIT))) {
                        store.withdrawOneFenced(id, lease, () -> { });
                    } finally {
                        bWrote.countDown();
                    }
                    return null;
                });
            }
            int rejected = 0;
            for (Future<Boolean> accepted : staleWrites) {
                if (!accepted.get()) {
                    rejected++;
                }
            }
            return new Outcome(staleWrites.size(), rejected);
        } finally {
            pool.shutdownNow();
        }
    }

    private long balance(String id) {
        return store.find(id).map(Account::balance).orElseThrow();
    }

    private static void closeExpired(LockLease lease) {
        try {
            lease.close();
        } catch (LockLostException expected) {
            // The lease ran out during the pause: that is the point of the scenario.
        }
    }
}
