package dev.mortise.lock.internal;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.spi.AsyncWaits;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease an asynchronous acquire hands out is on no thread's {@link LockContext}: not on the shared
 * thread that built it, whose next tasks (other users' callbacks) would otherwise see it as theirs.
 */
class AsyncLeaseContextTest {

    @Test
    void noSharedThreadShowsALeaseAnAsyncAcquireHandedOut() throws Exception {
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).build()) {
            LockLease single = client.acquireAsync(LockSpec.of("ctx-single")).get(30, TimeUnit.SECONDS);
            LockLease nested = client.acquireAsync(LockSpec.of("ctx-owned").owner("job")).get(30, TimeUnit.SECONDS);
            LockLease inner = client.acquireAsync(LockSpec.of("ctx-owned").owner("job")).get(30, TimeUnit.SECONDS);
            MultiLease multi = client.acquireAllAsync(MultiLockSpec.of(List.of("ctx-a", "ctx-b"))).get(30, TimeUnit.SECONDS);
            Map<String, List<String>> seen = leasesSeenOnEveryExecutorThread();
            assertThat(seen).as("leases in the LockContext of Mortise's shared threads").allSatisfy(
                    (thread, keys) -> assertThat(keys).as(thread).isEmpty());
            inner.close();
            nested.close();
            multi.close();
            single.close();
        }
    }

    /** Runs a task on each of the executor's threads at once (so each runs one) and reads its LockContext. */
    private static Map<String, List<String>> leasesSeenOnEveryExecutorThread() throws Exception {
        int threads = AsyncWaits.EXECUTOR_THREADS;
        CountDownLatch all = new CountDownLatch(threads);
        Map<String, List<String>> seen = new ConcurrentHashMap<>();
        CompletableFuture<?>[] tasks = new CompletableFuture<?>[threads];
        for (int i = 0; i < threads; i++) {
            tasks[i] = CompletableFuture.runAsync(() -> {
                seen.put(Thread.currentThread().getName(), LockContext.all().stream().map(LockLease::key).toList());
                all.countDown();
                try {
                    all.await(30, TimeUnit.SECONDS); // holds this thread so the next task takes another
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, AsyncWaits.executor());
        }
        CompletableFuture.allOf(tasks).get(60, TimeUnit.SECONDS);
        assertThat(seen).hasSize(threads);
        return seen;
    }
}
