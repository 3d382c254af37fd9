package dev.mortise.lock.etcd;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spi.Permits;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.GetOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code acquireAsync} waits on etcd's watches without a thread per waiting request: 300 waits on
 * 300 keys, each held by another owner (exclusive, shared and permit requests), all queued on the
 * server, grow the JVM's live threads by fewer than 30; once the holders release, every wait is
 * granted and nothing is left on the server.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EtcdAsyncWaitThreadsTest extends EtcdServerPerClass {

    private static final int WAITERS = 300;
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void threeHundredAsyncWaitsHoldNoThreadEachAndAllAreGranted() throws Exception {
        String run = "threads-" + UUID.randomUUID() + "-";
        try (EtcdLockBackend backend = EtcdTestSupport.backend(List.of(server.endpoint())).build()) {
            List<CompletableFuture<Optional<Grant>>> holding = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) { // free keys: each granted on its first step
                holding.add(backend.acquireAsync(request(run + i, "holder-" + i, i, true), Duration.ofSeconds(60)));
            }
            List<Grant> holders = new ArrayList<>();
            for (CompletableFuture<Optional<Grant>> held : holding) {
                holders.add(held.get(60, TimeUnit.SECONDS).orElseThrow());
            }
            warmUp(backend, run);
            int before = liveThreads();

            List<CompletableFuture<Optional<Grant>>> waits = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                waits.add(backend.acquireAsync(request(run + i, "waiter-" + i, i, false), Duration.ofSeconds(120)));
            }
            awaitKeys(run, 2 * WAITERS); // every waiter's key is queued behind its holder's
            int waiting = liveThreads();
            assertThat(waits).noneMatch(CompletableFuture::isDone);
            assertThat(waiting - before).as("threads added by %d waiting async requests (%d before)", WAITERS, before)
                    .isLessThan(30);

            List<Grant> granted = new ArrayList<>();
            ExecutorService releasing = Executors.newFixedThreadPool(8);
            try {
                releaseAll(backend, holders, releasing);
                for (CompletableFuture<Optional<Grant>> wait : waits) {
                    granted.add(wait.get(60, TimeUnit.SECONDS).orElseThrow());
                }
                releaseAll(backend, granted, releasing);
            } finally {
                releasing.shutdown();
            }
            awaitKeys(run, 0);
        }
    }

    /**
     * The holder's or the waiter's request for {@code key}, by {@code i} modulo 4: exclusive behind
     * exclusive, shared behind exclusive, exclusive behind shared, one permit of one behind another.
     */
    private static LockRequest request(String key, String owner, int i, boolean holder) {
        return switch (i % 4) {
            case 0 -> new LockRequest(key, owner, LEASE, true);
            case 1 -> new LockRequest(key, owner, LEASE, true, holder ? LockMode.EXCLUSIVE : LockMode.SHARED);
            case 2 -> new LockRequest(key, owner, LEASE, true, holder ? LockMode.SHARED : LockMode.EXCLUSIVE);
            default -> new LockRequest(key, owner, LEASE, true, LockMode.SHARED, new Permits(1, 1));
        };
    }

    /** Releases every grant, eight at a time, each found held. */
    private static void releaseAll(EtcdLockBackend backend, List<Grant> grants, ExecutorService pool) throws Exception {
        List<Future<Boolean>> released = new ArrayList<>();
        for (Grant grant : grants) {
            released.add(pool.submit(() -> backend.release(grant)));
        }
        for (Future<Boolean> each : released) {
            assertThat(each.get(60, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** One async wait granted on a release, so that the shared threads and the watch machinery already run. */
    private static void warmUp(EtcdLockBackend backend, String run) throws Exception {
        Grant held = backend.tryAcquire(request(run + "warm", "warm-holder", 0, true)).grant().orElseThrow();
        CompletableFuture<Optional<Grant>> wait = backend.acquireAsync(request(run + "warm", "warm-waiter", 0, false),
                Duration.ofSeconds(60));
        awaitKeys(run + "warm", 2);
        backend.release(held);
        backend.release(wait.get(60, TimeUnit.SECONDS).orElseThrow());
        awaitKeys(run + "warm", 0);
    }

    /** Waits until exactly {@code count} keys lie under the locks whose key starts with {@code keyStart}. */
    private static void awaitKeys(String keyStart, long count) throws Exception {
        ByteSequence prefix = ByteSequence.from(EtcdTestSupport.NAMESPACE + keyStart, StandardCharsets.UTF_8);
        GetOption option = GetOption.builder().isPrefix(true).withCountOnly(true).build();
        long seen = -1;
        for (int i = 0; i < 1200 && seen != count; i++) {
            if (i > 0) {
                Thread.sleep(50);
            }
            seen = admin.getKVClient().get(prefix, option).get(10, TimeUnit.SECONDS).getCount();
        }
        assertThat(seen).as("keys under %s", keyStart).isEqualTo(count);
    }

    /** The JVM's live threads (java.management is not in this module's graph). */
    private static int liveThreads() {
        return Thread.getAllStackTraces().size();
    }
}
