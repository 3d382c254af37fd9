package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.PermitLease;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acquiring without a waiting thread ({@code acquireAsync}, {@code tryAcquireAsync}): the contract of
 * the blocking calls through the asynchronous path — grants and mutual exclusion, a wait that runs
 * out, cancellation at every point leaving nothing on the server, reentrancy by explicit owner,
 * strictly increasing tokens, {@code onLost} — and a thousand waiters that hold no thread each; the
 * multi-key ({@link MultiKey}) and permit ({@link Permits}) forms in nested classes. Run
 * by every {@link LockBackendContractSuite} as its nested {@code AsyncAcquire} class, against the
 * backend's real server. Tagged {@code async}, so it runs alone with
 * {@code -Dgroups=async -Dtest=<the contract test>}.
 */
@Tag("async")
abstract class AsyncAcquireContract extends NestedContract {

    private static final long ANSWER_SECONDS = 30;

    AsyncAcquireContract(LockBackendContractSuite suite) {
        super(suite);
    }

    private static <T> T done(CompletableFuture<T> future) throws Exception {
        return future.get(ANSWER_SECONDS, TimeUnit.SECONDS);
    }

    private static Throwable failure(CompletableFuture<?> future) throws Exception {
        try {
            future.get(ANSWER_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected " + future + " to fail");
    }

    @Test
    void grantsAndExcludesThroughTheAsyncPath() throws Exception {
        String key = key();
        LockLease first = done(a.acquireAsync(LockSpec.of(key).waitFor(Duration.ofSeconds(5))));
        CompletableFuture<LockLease> waiter = b.acquireAsync(LockSpec.of(key).waitFor(Duration.ofSeconds(60)));
        Thread.sleep(200);
        assertThat(waiter).isNotDone();
        first.close();
        LockLease second = done(waiter);
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        second.close();

        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            LockClient client = i % 2 == 0 ? a : b;
            all.add(client.acquireAsync(LockSpec.of(key).waitFor(Duration.ofSeconds(60))).thenAccept(lease -> {
                if (inside.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                inside.decrementAndGet();
                lease.close();
            }));
        }
        done(CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)));
        assertThat(overlaps).hasValue(0);
        await(SLACK, () -> residue(key) == 0, "nothing left on the server for " + key);
    }

    @Test
    void aWaitThatRunsOutFailsOrIsEmptyAndLeavesNothing() throws Exception {
        String key = key();
        try (LockLease held = a.acquire(key, Duration.ofSeconds(5))) {
            int holding = residue(key);
            assertThat(failure(b.acquireAsync(LockSpec.of(key).waitFor(Duration.ofMillis(300)))))
                    .isInstanceOf(LockTimeoutException.class).hasMessageContaining(key);
            assertThat(done(b.tryAcquireAsync(LockSpec.of(key).waitFor(Duration.ofMillis(300))))).isEmpty();
            assertThat(done(b.tryAcquireAsync(LockSpec.of(key)))).isEmpty();
            await(SLACK, () -> residue(key) <= holding, "the timed-out requests left nothing behind");
        }
        await(SLACK, () -> residue(key) == 0, "nothing left on the server for " + key);
        assertThat(done(b.tryAcquireAsync(LockSpec.of(key)))).hasValueSatisfying(LockLease::close);
    }

    @Test
    void cancellingBeforeSendOrWhileWaitingLeavesNothingAndTheKeyFree() throws Exception {
        String key = key();
        CompletableFuture<LockLease> beforeSend = b.acquireAsync(LockSpec.of(key).waitFor(Duration.ofSeconds(60)));
        if (!beforeSend.cancel(true)) {
            done(beforeSend).close(); // the free key was granted before the cancel came: the caller has it
        }
        LockLease held = a.acquire(key, Duration.ofSeconds(5));
        CompletableFuture<LockLease> waiting = b.acquireAsync(LockSpec.of(key).waitFor(Duration.ofSeconds(60)));
        CompletableFuture<LockLease> queued = b.acquireAsync(LockSpec.of(key).waitFor(Duration.ofSeconds(60)));
        CompletableFuture<Optional<LockLease>> tried = b.tryAcquireAsync(LockSpec.of(key).waitFor(Duration.ofSeconds(60)));
        Thread.sleep(300);
        assertThat(waiting.cancel(true)).isTrue();
        assertThat(queued.cancel(true)).isTrue();
        assertThat(tried.cancel(true)).isTrue(); // the try form withdraws too, not only the future it maps
        held.close();
        await(SLACK, () -> residue(key) == 0, "the cancelled requests left nothing on the server");
        try (LockLease next = b.acquire(key, Duration.ofSeconds(5))) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        try (LockLease other = a.acquire(key, Duration.ofSeconds(5))) {
            assertThat(other.isValid()).isTrue();
        }
    }

    @Test
    void aGrantRacingTheCancelIsReleasedNeverLeaked() throws Exception {
        String key = key();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        int rounds = 0;
        while (rounds < 20 || rounds < 300 && System.nanoTime() - until < 0) {
            CompletableFuture<LockLease> asked = b.acquireAsync(LockSpec.of(key).waitFor(Duration.ofSeconds(5)));
            int spin = ThreadLocalRandom.current().nextInt(rounds % 3 == 0 ? 1 : 20_000);
            for (int i = 0; i < spin; i++) {
                Thread.onSpinWait();
            }
            if (!asked.cancel(true)) {
                done(asked).close(); // granted before the cancel: the caller has it and closes it
            }
            // Whatever the race gave, the key is free again for the next owner within a short wait.
            LockLease next = a.tryAcquire(key, SLACK).orElseThrow(
                    () -> new AssertionError("a grant that raced a cancel kept the key"));
            next.close();
            rounds++;
        }
        await(SLACK, () -> residue(key) == 0, "nothing left on the server after " + 300 + " races");
    }

    @Test
    void anExplicitOwnerNestsAndAnAsyncCallWithoutOneDoesNot() throws Exception {
        String key = key();
        try (LockLease parent = a.acquire(LockSpec.of(key).owner("job-1").waitFor(Duration.ofSeconds(5)))) {
            LockLease child = done(a.acquireAsync(LockSpec.of(key).owner("job-1")));
            assertThat(child.fencingToken()).isEqualTo(parent.fencingToken());
            child.close();
            assertThat(parent.isValid()).isTrue();
        }
        try (LockLease mine = a.acquire(key, Duration.ofSeconds(5))) {
            // The calling thread holds the key; an async acquire without owner is its own owner and waits.
            assertThat(done(a.tryAcquireAsync(LockSpec.of(key).waitFor(Duration.ofMillis(200))))).isEmpty();
            assertThat(mine.isValid()).isTrue();
        }
        await(SLACK, () -> residue(key) == 0, "nothing left on the server for " + key);
    }

    @Test
    void aWaitingExplicitOwnerNestsOnceItsOtherRequestIsGranted() throws Exception {
        String key = key();
        LockLease blocker = b.acquire(key, Duration.ofSeconds(5));
        CompletableFuture<LockLease> parent = CompletableFuture.supplyAsync(
                () -> a.acquire(LockSpec.of(key).owner("job-2").waitFor(Duration.ofSeconds(60))));
        Thread.sleep(100);
        CompletableFuture<LockLease> child = a.acquireAsync(LockSpec.of(key).owner("job-2").waitFor(Duration.ofSeconds(60)));
        Thread.sleep(100);
        assertThat(child).isNotDone();
        blocker.close();
        LockLease granted = done(parent);
        LockLease nested = done(child);
        assertThat(nested.fencingToken()).isEqualTo(granted.fencingToken());
        nested.close();
        granted.close();
        await(SLACK, () -> residue(key) == 0, "nothing left on the server for " + key);
    }

    @Test
    void closingTheClientFailsItsWaitersAndLeavesNothing() throws Exception {
        String key = key();
        LockClient closing = newClient();
        try (LockLease held = a.acquire(key, Duration.ofSeconds(5))) {
            CompletableFuture<LockLease> waiting = closing.acquireAsync(LockSpec.of(key).waitFor(Duration.ofSeconds(60)));
            Thread.sleep(200);
            closing.close();
            assertThat(failure(waiting)).isInstanceOf(dev.mortise.lock.LockException.class)
                    .hasMessageContaining(key);
        }
        await(SLACK, () -> residue(key) == 0, "the closed client's request left nothing on the server");
        assertThat(failure(closing.acquireAsync(LockSpec.of(key)))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void tokensIncreaseStrictlyAndLossIsReported() throws Exception {
        String key = key();
        long last = -1;
        for (int i = 0; i < 6; i++) {
            LockLease lease = done((i % 2 == 0 ? a : b).acquireAsync(LockSpec.of(key)));
            assertThat(lease.fencingToken()).isGreaterThan(last);
            last = lease.fencingToken();
            lease.close();
        }
        LockLease lease = done(a.acquireAsync(LockSpec.of(key).waitFor(Duration.ofSeconds(5))));
        CompletableFuture<Object> lost = new CompletableFuture<>();
        lease.onLost(lost::complete);
        breakHold(lease);
        done(lost);
        assertThat(lease.isValid()).isFalse();
    }

    /**
     * A thousand waiters start no more threads than a hundred: what a client library starts for the
     * concurrency the key gates allow (connections, I/O event loops, the blocking default's one thread
     * per server wait) grows in the first round; a thread per waiter would add hundreds in the second.
     */
    @Test
    void aThousandWaitersOnTenKeysHoldNoThreadEach() throws Exception {
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            keys.add(key("k" + k));
        }
        int warmed = drain(100, keys);
        int peak = drain(1000, keys);
        assertThat(peak - warmed).as("threads added by 1000 async waiters over the peak of 100 (" + warmed + ")")
                .isLessThan(50);
        for (String key : keys) {
            await(SLACK, () -> residue(key) == 0, "nothing left on the server for " + key);
        }
    }

    /** Sends {@code waiters} async acquires over {@code keys} (two clients), each closed once granted; the JVM's peak thread count meanwhile. */
    private int drain(int waiters, List<String> keys) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int peak = threads.getThreadCount();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            LockClient client = i % 2 == 0 ? a : b;
            all.add(client.acquireAsync(LockSpec.of(keys.get(i % keys.size())).waitFor(Duration.ofSeconds(120)))
                    .thenAccept(LockLease::close));
        }
        CompletableFuture<Void> drained = CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
        while (!drained.isDone()) {
            peak = Math.max(peak, threads.getThreadCount());
            Thread.sleep(5);
        }
        drained.get(); // every waiter was granted (none failed)
        return peak;
    }

    /**
     * {@code acquireAllAsync}/{@code tryAcquireAllAsync}: all or nothing while one part is held
     * elsewhere, the wait running out or a cancel while waiting leaving nothing, and the whole granted
     * once the part is free.
     */
    @Nested
    class MultiKey {

        @Test
        void allOrNothingWhileAPartIsHeldAndACancelLeavesNothing() throws Exception {
            String k1 = key("m1");
            String k2 = key("m2");
            String k3 = key("m3");
            MultiLockSpec all = MultiLockSpec.of(List.of(k3, k1, k2));
            LockLease busy = a.acquire(k2, Duration.ofSeconds(5));
            assertThat(failure(b.acquireAllAsync(all.waitFor(Duration.ofMillis(200)))))
                    .isInstanceOf(LockTimeoutException.class).hasMessageContaining(k2);
            assertThat(done(b.tryAcquireAllAsync(all))).isEmpty();
            CompletableFuture<MultiLease> waiting = b.acquireAllAsync(all.waitFor(Duration.ofSeconds(60)));
            Thread.sleep(200);
            assertThat(waiting.cancel(true)).isTrue();
            for (String k : List.of(k1, k3)) { // taken before the busy part, given back
                await(SLACK, () -> residue(k) == 0, "the cancelled request left nothing on " + k);
            }
            CompletableFuture<Optional<MultiLease>> granted = b.tryAcquireAllAsync(all.waitFor(Duration.ofSeconds(60)));
            busy.close(); // waiting or not yet: either way the whole is granted once the part is free
            try (MultiLease lease = done(granted).orElseThrow()) {
                assertThat(lease.keys()).containsExactlyInAnyOrder(k1, k2, k3);
                assertThat(lease.fencingToken(k2)).isGreaterThan(busy.fencingToken());
                assertThat(a.tryAcquire(k1)).isEmpty();
            }
            for (String k : List.of(k1, k2, k3)) {
                await(SLACK, () -> residue(k) == 0, "nothing left on the server for " + k);
            }
        }
    }

    /**
     * {@code LockSemaphore.acquireAsync}/{@code tryAcquireAsync}: n permits granted together, a wait
     * for more than are free running out or cancelled leaving nothing, on the backend's native
     * semaphore or its slot fallback.
     */
    @Nested
    class Permits {

        @Test
        void nPermitsAreGrantedAndACancelWhileWaitingLeavesNothing() throws Exception {
            String name = key("sem");
            LockSemaphore mine = a.semaphore(name, 3);
            LockSemaphore theirs = b.semaphore(name, 3);
            PermitLease two = done(mine.acquireAsync(2, Duration.ofSeconds(5)));
            assertThat(two.count()).isEqualTo(2);
            assertThat(failure(theirs.acquireAsync(2, Duration.ofMillis(200))))
                    .isInstanceOf(LockTimeoutException.class).hasMessageContaining(name);
            assertThat(done(theirs.tryAcquireAsync(2, Duration.ZERO))).isEmpty();
            CompletableFuture<PermitLease> waiting = theirs.acquireAsync(2, Duration.ofSeconds(60));
            Thread.sleep(200);
            assertThat(waiting.cancel(true)).isTrue();
            // withdrawn at once: on a fair semaphore a request still queued would keep the free permit from this one
            mine.tryAcquire(1, SLACK).orElseThrow(() -> new AssertionError("the cancelled request still queues")).close();
            two.close();
            await(SLACK, () -> permitResidue(mine) == 0, "the cancelled request left nothing of " + name);
            try (PermitLease all = done(theirs.tryAcquireAsync(3, Duration.ofSeconds(5))).orElseThrow()) {
                assertThat(all.count()).isEqualTo(3);
                assertThat(all.isValid()).isTrue();
            }
            await(SLACK, () -> permitResidue(mine) == 0, "nothing left on the server of " + name);
        }

        private int permitResidue(LockSemaphore semaphore) {
            try {
                return SemaphoreContract.residue(contract, semaphore, semaphore.permits());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private int residue(String key) {
        try {
            return residueOnServer(key);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
