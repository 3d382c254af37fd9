package dev.mortise.lock.tck;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.spi.LockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The multi-key contract ({@link LockClient#acquireAll}), run by every backend through the
 * {@code @Nested} class {@code LockBackendContractSuite.MultiKey}, with that test's clients
 * {@code a} and {@code b} and its hooks ({@code breakHold}, {@code residueOnServer}): random
 * overlapping key sets from many threads on two clients neither deadlock nor overlap, a caller
 * that times out or is interrupted holds none of its keys and leaves nothing on the server, the
 * loss of one part is one loss of the whole, and every part has its own fencing token. Shared
 * parts are mixed in only where the backend {@link LockBackend#supportsSharedMode() supports} them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class MultiKeyContract {

    private final LockBackendContractSuite test;

    /** @param test the enclosing contract test, whose fixture ({@code a}, {@code b}) is set up per test */
    protected MultiKeyContract(LockBackendContractSuite test) {
        this.test = test;
    }

    // ---- no deadlock, no overlap --------------------------------------------------------------

    @Test
    void randomOverlappingSetsFromManyThreadsOnTwoClientsNeitherDeadlockNorOverlap() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        boolean shared = test.supportsSharedMode();
        String run = Long.toHexString(random.nextLong() & 0xffffffL);
        // random Unicode keys (any first character), made unique to this run by a suffix
        List<String> pool = PropertyKeys.pool(random, 7).stream().map(k -> k + " ~" + run).toList();
        int threadsPerClient = 3;
        int rounds = 12;
        Overlaps overlaps = new Overlaps();
        ExecutorService threads = Executors.newFixedThreadPool(threadsPerClient * 2);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (LockClient client : List.of(test.a, test.b)) {
                for (int t = 0; t < threadsPerClient; t++) {
                    long threadSeed = random.nextLong();
                    futures.add(threads.submit(() -> {
                        Random own = new Random(threadSeed);
                        for (int i = 0; i < rounds; i++) {
                            MultiLockSpec spec = randomSet(own, pool, shared).waitFor(Duration.ofSeconds(60));
                            try (MultiLease all = client.acquireAll(spec)) {
                                overlaps.enter(all);
                                Thread.yield();
                                overlaps.leave(all);
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> future : futures) {
                try {
                    future.get(100, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError("multi-key acquires did not finish in 100 s: a deadlock? (seed " + seed
                            + ", keys " + pool + ")", e);
                }
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(overlaps.found).as("holds of one key that overlapped (seed " + seed + ", keys " + pool + ")")
                .isEmpty();
        for (String key : pool) {
            assertThat(test.residueOnServer(key)).as("records left for " + key).isZero();
        }
    }

    /** 1 to 4 keys of {@code pool} in random order, some named twice; shared parts only if supported. */
    private static MultiLockSpec randomSet(Random random, List<String> pool, boolean shared) {
        List<String> keys = new ArrayList<>(pool);
        Collections.shuffle(keys, random);
        keys = new ArrayList<>(keys.subList(0, 1 + random.nextInt(4)));
        if (random.nextInt(4) == 0) {
            keys.add(keys.get(random.nextInt(keys.size())));
        }
        Collections.shuffle(keys, random);
        MultiLockSpec spec = MultiLockSpec.of(List.of());
        for (String key : keys) {
            spec = shared && random.nextBoolean() ? spec.shared(key) : spec.exclusive(key);
        }
        return spec;
    }

    /** Per key: writers and readers inside at once; any writer with company is an overlap. */
    private static final class Overlaps {
        private final Map<String, AtomicInteger> writers = new ConcurrentHashMap<>();
        private final Map<String, AtomicInteger> readers = new ConcurrentHashMap<>();
        private final List<String> found = new CopyOnWriteArrayList<>();

        void enter(MultiLease all) {
            for (String key : all.keys()) {
                AtomicInteger w = writers.computeIfAbsent(key, k -> new AtomicInteger());
                AtomicInteger r = readers.computeIfAbsent(key, k -> new AtomicInteger());
                if (all.mode(key) == LockMode.EXCLUSIVE) {
                    if (w.incrementAndGet() > 1 || r.get() > 0) {
                        found.add(key);
                    }
                } else if (r.incrementAndGet() > 0 && w.get() > 0) {
                    found.add(key);
                }
            }
        }

        void leave(MultiLease all) {
            for (String key : all.keys()) {
                (all.mode(key) == LockMode.EXCLUSIVE ? writers : readers).get(key).decrementAndGet();
            }
        }
    }

    // ---- all or nothing ----------------------------------------------------------------------

    @Test
    void aCallerThatTimesOutHoldsNoneOfItsKeysAndLeavesNothingOnTheServer() throws Exception {
        String k1 = test.key("1");
        String k2 = test.key("2");
        String k3 = test.key("3");
        LockLease held = test.b.acquire(k2, Duration.ofSeconds(5));
        assertThatThrownBy(() -> test.a.acquireAll(List.of(k3, k2, k1), Duration.ofMillis(300)))
                .isInstanceOf(LockTimeoutException.class).hasMessageContaining(k2);
        assertThat(test.a.heldLocks()).as("holds of the caller that timed out").isEmpty();
        assertThat(test.a.tryAcquireAll(List.of(k1, k2, k3))).isEmpty();
        assertThat(test.a.tryAcquireAll(List.of(k1, k2, k3), Duration.ofMillis(200))).isEmpty();
        assertThat(test.a.heldLocks()).isEmpty();
        assertThat(test.residueOnServer(k1)).as("records left for the part taken before the busy one").isZero();
        assertThat(test.residueOnServer(k3)).isZero();
        held.close();
        assertThat(test.residueOnServer(k2)).isZero();
        test.newClient().tryAcquireAll(List.of(k1, k2, k3)).orElseThrow().close();
    }

    @Test
    void anInterruptDuringTheWaitReleasesWhatWasTaken() throws Exception {
        String k1 = test.key("1");
        String k2 = test.key("2");
        LockLease held = test.b.acquire(k2, Duration.ofSeconds(5));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> flagAfter = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                test.a.acquireAll(List.of(k2, k1), Duration.ofSeconds(60)).close();
            } catch (Throwable t) {
                failure.set(t);
                flagAfter.set(Thread.currentThread().isInterrupted());
            } finally {
                done.countDown();
            }
        }, "mortise-tck-multikey-waiter");
        waiter.start();
        try {
            LockBackendContractSuite.await(LockBackendContractSuite.SLACK,
                    () -> test.a.heldLocks().stream().anyMatch(h -> h.key().equals(k1)), "the first part taken");
            Thread.sleep(300); // well into the wait for the second part
            waiter.interrupt();
            assertThat(done.await(LockBackendContractSuite.SLACK.toMillis(), TimeUnit.MILLISECONDS))
                    .as("the waiter ended after the interrupt").isTrue();
        } finally {
            waiter.interrupt();
            waiter.join(10_000);
        }
        assertThat(failure.get()).isInstanceOf(LockInterruptedException.class);
        assertThat(flagAfter.get()).as("interrupt flag set again").isTrue();
        assertThat(test.a.heldLocks()).isEmpty();
        assertThat(test.residueOnServer(k1)).as("records left for the part taken").isZero();
        held.close();
        assertThat(test.residueOnServer(k2)).as("records left for the part waited for").isZero();
        test.newClient().tryAcquireAll(List.of(k1, k2)).orElseThrow().close();
    }

    // ---- one handle ----------------------------------------------------------------------------

    @Test
    void losingOnePartFiresOnLostOnceForTheWholeAndCloseReleasesTheRest() throws Exception {
        String k1 = test.key("1");
        String k2 = test.key("2");
        String k3 = test.key("3");
        MultiLease all = test.a.acquireAll(List.of(k1, k2, k3), Duration.ofSeconds(5));
        List<LockLostEvent> told = new CopyOnWriteArrayList<>();
        all.onLost(told::add);
        assertThat(all.isValid()).isTrue();
        test.breakHold(all.part(k2));
        LockBackendContractSuite.await(test.watchdogLease().plus(LockBackendContractSuite.SLACK),
                () -> !told.isEmpty(), "onLost of the multi-key lease");
        assertThat(all.isValid()).isFalse();
        assertThat(all.remaining()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(all::ensureValid).isInstanceOf(LockLostException.class);
        Thread.sleep(test.watchdogLease().toMillis()); // further renewals and losses are not told again
        assertThat(told).as("onLost calls").hasSize(1);
        assertThat(told.get(0).key()).isIn(k1, k2, k3);
        try {
            all.close();
        } catch (LockLostException expected) {
            // the lost part reports its loss at close; the other parts were released all the same
        }
        assertThat(test.a.heldLocks()).isEmpty();
        for (String key : List.of(k1, k2, k3)) {
            assertThat(test.residueOnServer(key)).as("records left for " + key).isZero();
        }
        test.newClient().tryAcquireAll(List.of(k1, k2, k3)).orElseThrow().close();
        assertThat(told).hasSize(1);
    }

    @Test
    void everyPartHasItsOwnFencingToken() {
        String k1 = test.key("1");
        String k2 = test.key("2");
        long before;
        try (LockLease earlier = test.b.acquire(k1, Duration.ofSeconds(5))) {
            before = earlier.fencingToken();
        }
        long k1Token;
        try (MultiLease all = test.a.acquireAll(List.of(k2, k1), Duration.ofSeconds(5))) {
            assertThat(all.parts()).extracting(LockLease::key).containsExactly(k1, k2);
            k1Token = all.fencingToken(k1);
            assertThat(k1Token).isEqualTo(all.part(k1).fencingToken()).isGreaterThan(before);
            assertThat(all.fencingToken(k2)).isEqualTo(all.part(k2).fencingToken());
            assertThat(all.remaining()).isPositive().isLessThanOrEqualTo(all.part(k1).remaining().plusMillis(100));
        }
        try (LockLease later = test.b.acquire(k1, Duration.ofSeconds(5))) {
            assertThat(later.fencingToken()).isGreaterThan(k1Token);
        }
    }

    // ---- shared parts (backends that support them) ------------------------------------------

    @Test
    void sharedPartsCoexistAndExcludeWriters() throws Exception {
        String common = test.key("common");
        String own1 = test.key("own1");
        String own2 = test.key("own2");
        if (!test.supportsSharedMode()) {
            // The contract of a backend without shared mode: the whole request is refused clearly,
            // and nothing of it (not even its exclusive part) is left held.
            assertThatThrownBy(() -> test.a.acquireAll(MultiLockSpec.of(List.of(own1)).shared(common)
                    .waitFor(Duration.ofSeconds(5)))).isInstanceOf(LockException.class)
                    .hasMessageContaining("supportsSharedMode");
            assertThat(test.a.heldLocks()).isEmpty();
            assertThat(test.residueOnServer(own1) + test.residueOnServer(common)).isZero();
            return;
        }
        try (MultiLease one = test.a.acquireAll(MultiLockSpec.of(List.of(own1)).shared(common)
                .waitFor(Duration.ofSeconds(5)));
             MultiLease two = test.b.acquireAll(MultiLockSpec.of(List.of(own2)).shared(common)
                     .waitFor(Duration.ofSeconds(5)))) {
            assertThat(one.mode(common)).isEqualTo(LockMode.SHARED);
            assertThat(two.isValid()).isTrue();
            LockClient third = test.newClient();
            assertThat(third.tryAcquireAll(List.of(common))).as("a writer while readers hold").isEmpty();
            assertThat(third.tryAcquireAll(MultiLockSpec.of(List.of(own1)).shared(common)))
                    .as("a reader of the common key, but a writer of a key another holds").isEmpty();
            assertThat(third.heldLocks()).isEmpty();
        }
        assertThat(test.residueOnServer(common)).isZero();
    }
}
