package dev.mortise.lock.bench.run;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.bench.common.Endpoints;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** The subjects of {@link WaitersRun}: Mortise async and blocking on every group, Redisson lockAsync on Redis. */
final class WaiterSubjects {

    private WaiterSubjects() {
    }

    /** The group's subjects, by id. */
    static List<String> ids(String group) {
        return group.equals("redis") ? List.of("mortise-async", "mortise-blocking", "redisson-lockasync")
                : List.of("mortise-async", "mortise-blocking");
    }

    static String label(String id) {
        return switch (id) {
            case "mortise-async" -> "Mortise acquireAsync";
            case "mortise-blocking" -> "Mortise acquire (a platform thread per waiter)";
            case "redisson-lockasync" -> "Redisson RLock.lockAsync";
            default -> throw new IllegalArgumentException("unknown waiters subject " + id);
        };
    }

    static WaiterSubject create(String id, String group, Endpoints endpoints) {
        return switch (id) {
            case "mortise-async" -> new MortiseWaiters(group, endpoints, true);
            case "mortise-blocking" -> new MortiseWaiters(group, endpoints, false);
            case "redisson-lockasync" -> new RedissonWaiters(endpoints.get("redis"));
            default -> throw new IllegalArgumentException("unknown waiters subject " + id);
        };
    }

    /** Counts waiters done and keeps the first failure. */
    private static final class Countdown implements WaiterSubject.Waits {
        private final CountDownLatch left;
        private final int n;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        Countdown(int n) {
            this.n = n;
            this.left = new CountDownLatch(n);
        }

        void done(Throwable error) {
            if (error != null) {
                failure.compareAndSet(null, error);
            }
            left.countDown();
        }

        @Override
        public int done() {
            return n - (int) left.getCount();
        }

        @Override
        public void awaitAll(Duration wait) throws Exception {
            if (!left.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(left.getCount() + " of " + n + " waiters still waiting after " + wait);
            }
            if (failure.get() != null) {
                throw new IllegalStateException("a waiter failed: " + failure.get(), failure.get());
            }
        }
    }

    /** Mortise: a holder client and a waiters' client on the group's backend; async or a platform thread per waiter. */
    private static final class MortiseWaiters implements WaiterSubject {
        private final boolean async;
        private final List<AutoCloseable> after = new ArrayList<>();
        private final LockClient holder;
        private final LockClient waiters;

        MortiseWaiters(String group, Endpoints endpoints, boolean async) {
            this.async = async;
            this.holder = WaitersWorker.client(group, endpoints, after);
            this.waiters = WaitersWorker.client(group, endpoints, after);
        }

        @Override
        public List<AutoCloseable> hold(String prefix, int keys) {
            return WaitersWorker.holdAll(holder, prefix, keys);
        }

        @Override
        public Waits startWaiting(String prefix, int keys, int n, Duration wait) {
            Countdown countdown = new Countdown(n);
            for (int i = 0; i < n; i++) {
                LockSpec spec = LockSpec.of(prefix + (i % keys)).waitFor(wait);
                if (async) {
                    waiters.acquireAsync(spec).whenComplete((lease, failure) -> {
                        Throwable error = failure;
                        if (lease != null) {
                            try {
                                lease.close();
                            } catch (RuntimeException e) {
                                error = e;
                            }
                        }
                        countdown.done(error);
                    });
                } else {
                    Thread thread = new Thread(() -> {
                        Throwable error = null;
                        try (LockLease lease = waiters.acquire(spec)) {
                            lease.fencingToken();
                        } catch (RuntimeException e) {
                            error = e;
                        }
                        countdown.done(error);
                    }, "waiter-" + i);
                    thread.setDaemon(true);
                    thread.start();
                }
            }
            return countdown;
        }

        @Override
        public void close() {
            waiters.close();
            holder.close();
            for (AutoCloseable closeable : after) {
                try {
                    closeable.close();
                } catch (Exception ignored) {
                    // a pool that will not close is the JVM's to end
                }
            }
        }
    }

    /** Redisson: {@code RLock.lockAsync} with a thread id per waiter (so waiters do not nest), released by {@code unlockAsync}. */
    private static final class RedissonWaiters implements WaiterSubject {
        private final RedissonClient holder;
        private final RedissonClient waiters;

        RedissonWaiters(String address) {
            this.holder = client(address);
            this.waiters = client(address);
        }

        private static RedissonClient client(String address) {
            Config config = new Config();
            config.useSingleServer().setAddress(address);
            return Redisson.create(config);
        }

        @Override
        public List<AutoCloseable> hold(String prefix, int keys) {
            List<AutoCloseable> held = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                RLock lock = holder.getLock(prefix + k);
                long id = 1_000_000L + k;
                lock.lockAsync(-1, TimeUnit.MILLISECONDS, id).toCompletableFuture().join();
                held.add(() -> lock.unlockAsync(id).toCompletableFuture().join());
            }
            return held;
        }

        @Override
        public Waits startWaiting(String prefix, int keys, int n, Duration wait) {
            Countdown countdown = new Countdown(n);
            for (int i = 0; i < n; i++) {
                RLock lock = waiters.getLock(prefix + (i % keys));
                long id = 2_000_000L + i;
                lock.lockAsync(-1, TimeUnit.MILLISECONDS, id).toCompletableFuture()
                        .thenCompose(locked -> lock.unlockAsync(id).toCompletableFuture())
                        .whenComplete((done, failure) -> countdown.done(failure));
            }
            return countdown;
        }

        @Override
        public void close() {
            waiters.shutdown();
            holder.shutdown();
        }
    }
}
