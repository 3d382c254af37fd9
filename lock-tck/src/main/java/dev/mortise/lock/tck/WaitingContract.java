package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Waiting (DESIGN.md "Semantics" 6): {@code tryAcquire} never waits, a timed wait ends near its
 * deadline, a waiter is granted when the holder releases, and threads of one client queue locally.
 * Run by every {@link LockBackendContractSuite} as its nested {@code Waiting} class, with the
 * suite's clients {@code a} and {@code b} and its hooks.
 */
abstract class WaitingContract extends NestedContract {

    WaitingContract(LockBackendContractSuite suite) {
        super(suite);
    }

    @Test
    void tryAcquireNeverWaits() {
        String key = key();
        try (LockLease held = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(60)))) {
            long start = System.nanoTime();
            assertThat(b.tryAcquire(key)).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SLACK);
        }
    }

    @Test
    void timedAcquireThrowsTimeoutNearItsDeadline() {
        String key = key();
        Duration wait = Duration.ofMillis(700);
        try (LockLease held = a.acquire(key, Duration.ofSeconds(5))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> b.acquire(key, wait)).isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining(key).hasMessageContaining(b.backendName());
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            assertThat(waited).isGreaterThanOrEqualTo(wait.minusMillis(5)).isLessThan(wait.plus(SLACK));
        }
    }

    @Test
    void tryAcquireWithWaitGivesEmptyAfterItsDeadline() {
        String key = key();
        Duration wait = Duration.ofMillis(500);
        try (LockLease held = a.acquire(key, Duration.ofSeconds(5))) {
            long start = System.nanoTime();
            assertThat(b.tryAcquire(key, wait)).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(wait.minusMillis(5));
        }
    }

    @Test
    void waiterIsGrantedWhenTheHolderReleases() throws Exception {
        String key = key();
        LockLease held = a.acquire(key, Duration.ofSeconds(5));
        CompletableFuture<LockLease> waiter = CompletableFuture.supplyAsync(() -> b.acquire(key, Duration.ofSeconds(60)));
        Thread.sleep(300);
        assertThat(waiter).isNotDone();
        held.close();
        LockLease granted = waiter.get(30, TimeUnit.SECONDS);
        assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
        CompletableFuture.runAsync(granted::close).get(30, TimeUnit.SECONDS);
    }

    @Test
    void threadsOfOneClientQueueLocallyAndAskTheServerOnceEach() throws Exception {
        CountingBackend counting = new CountingBackend(newBackend());
        LockClient client = track(LockClient.builder(counting).defaultLease(watchdogLease()).build());
        String key = key();
        int threads = 4;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Long>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                futures.add(pool.submit(() -> {
                    go.await();
                    try (LockLease lease = client.acquire(key, Duration.ofSeconds(60))) {
                        Thread.sleep(50);
                        return lease.fencingToken();
                    }
                }));
            }
            go.countDown();
            for (Future<Long> future : futures) {
                future.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(counting.acquireCalls.get()).as("server acquire calls").isEqualTo(threads);
    }
}
