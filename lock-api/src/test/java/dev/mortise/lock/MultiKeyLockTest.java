package dev.mortise.lock;

import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link LockClient#acquireAll} semantics on the in-process backend: order, all-or-nothing, one handle. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MultiKeyLockTest {

    private final LocalLockServer server = new LocalLockServer();
    private final List<String> requested = new CopyOnWriteArrayList<>();
    private final List<LockClient> clients = new ArrayList<>();
    private final LockClient a = client(true);
    private final LockClient b = client(false);

    private LockClient client(boolean recording) {
        LocalLockBackend local = new LocalLockBackend(server);
        LockBackend backend = recording ? new RecordingBackend(local, requested) : local;
        LockClient client = LockClient.builder(backend).defaultLease(Duration.ofMillis(600)).build();
        clients.add(client);
        return client;
    }

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
    }

    @Test
    void keysAreTakenInCanonicalOrderWhateverOrderTheyCameIn() {
        try (MultiLease all = a.acquireAll(List.of("z", "b", "\u00e9", "B", "a:1", "a"), Duration.ofSeconds(1))) {
            List<String> sorted = List.of("B", "a", "a:1", "b", "z", "\u00e9");
            assertThat(requested).containsExactlyElementsOf(sorted);
            assertThat(all.keys()).containsExactlyElementsOf(sorted);
            assertThat(all.parts()).extracting(LockLease::key).containsExactlyElementsOf(sorted);
            assertThat(all.isValid()).isTrue();
            sorted.forEach(key -> assertThat(server.isHeld(key)).as(key).isTrue());
        }
        List.of("B", "a", "a:1", "b", "z", "\u00e9").forEach(key -> assertThat(server.isHeld(key)).as(key).isFalse());
    }

    @Test
    void duplicatesCollapseAndExclusiveWinsOverShared() {
        MultiLockSpec spec = MultiLockSpec.ofSpecs(List.of(LockSpec.of("x").shared(), LockSpec.of("y").shared(),
                LockSpec.of("x"), LockSpec.of("y").shared())).shared("z").exclusive("z").shared("x");
        assertThat(spec.keys()).containsExactly("x", "y", "z");
        try (MultiLease all = a.acquireAll(spec.waitFor(Duration.ofSeconds(1)))) {
            assertThat(requested).containsExactly("x", "y", "z");
            assertThat(all.mode("x")).isEqualTo(LockMode.EXCLUSIVE);
            assertThat(all.mode("y")).isEqualTo(LockMode.SHARED);
            assertThat(all.mode("z")).isEqualTo(LockMode.EXCLUSIVE);
        }
        try (MultiLease twice = a.acquireAll(List.of("k", "k", "k"), Duration.ofSeconds(1))) {
            assertThat(twice.parts()).hasSize(1);
            assertThat(twice.part("k").holdCount()).isEqualTo(1);
        }
    }

    @Test
    void aTimeOutReleasesThePartsAlreadyTaken() {
        try (LockLease held = b.acquire("m", Duration.ofSeconds(1))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> a.acquireAll(List.of("z", "m", "a"), Duration.ofMillis(300)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("'m'").hasMessageContaining("[a, m, z]")
                    .hasMessageContaining("None is held now");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
            assertThat(server.isHeld("a")).as("the part taken before the busy one").isFalse();
            assertThat(server.isHeld("z")).isFalse();
            assertThat(a.heldLocks()).isEmpty();
            assertThat(a.tryAcquireAll(List.of("a", "m"))).isEmpty();
            assertThat(a.tryAcquireAll(List.of("a", "m"), Duration.ofMillis(100))).isEmpty();
            assertThat(server.isHeld("a")).isFalse();
            assertThat(held.isValid()).isTrue();
        }
        a.tryAcquireAll(List.of("a", "m", "z")).orElseThrow().close();
    }

    @Test
    void theWaitIsOneDeadlineForAllParts() throws Exception {
        LockLease first = b.acquire("a", Duration.ofSeconds(1));
        LockLease second = b.acquire("b", Duration.ofSeconds(1));
        Thread releaser = new Thread(() -> {
            try {
                Thread.sleep(1500);
            } catch (InterruptedException e) {
                return;
            }
            first.close();
        });
        releaser.start();
        long start = System.nanoTime();
        // "a" frees after 1.5 s, "b" never: one 2 s deadline ends near 2 s; a wait per part would take 3.5 s and more
        assertThat(a.tryAcquireAll(List.of("a", "b"), Duration.ofSeconds(2))).isEmpty();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        releaser.join();
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(2)).isLessThan(Duration.ofMillis(3400));
        assertThat(server.isHeld("a")).isFalse();
        second.close();
    }

    @Test
    void anInterruptedWaitReleasesWhatWasTaken() throws Exception {
        LockLease held = b.acquire("n", Duration.ofSeconds(1));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                a.acquireAll(List.of("m", "n"), Duration.ofSeconds(30)).close();
            } catch (Throwable t) {
                failure.set(t);
                flag.set(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        started.await();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!server.isHeld("m") && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(server.isHeld("m")).as("the first part is taken while the second waits").isTrue();
        waiter.interrupt();
        waiter.join(10_000);
        assertThat(failure.get()).isInstanceOf(LockInterruptedException.class);
        assertThat(flag.get()).as("interrupt flag set again").isTrue();
        assertThat(server.isHeld("m")).isFalse();
        held.close();
        b.tryAcquireAll(List.of("m", "n")).orElseThrow().close();
    }

    @Test
    void aBadKeyReleasesThePartsBeforeIt() {
        String tooLong = "y".repeat(600);
        assertThatThrownBy(() -> a.acquireAll(List.of("a", tooLong), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("UTF-8 bytes");
        assertThat(server.isHeld("a")).isFalse();
        assertThat(a.heldLocks()).isEmpty();
    }

    @Test
    void emptyAndNullKeysAreRefusedWithAReason() {
        assertThatThrownBy(() -> a.acquireAll(List.of(), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one key");
        assertThatThrownBy(() -> a.acquireAll(java.util.Arrays.asList("a", null), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be null");
        assertThatThrownBy(() -> a.acquireAll(List.of("a"), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("zero or positive");
        assertThatThrownBy(() -> MultiLockSpec.ofSpecs(List.of(LockSpec.of("a").lease(Duration.ofSeconds(1)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("on the MultiLockSpec");
    }

    @Test
    void eachPartHasItsOwnTokenAndTheWholeItsLeastValidity() {
        b.acquire("t1", Duration.ofSeconds(1)).close();
        b.acquire("t1", Duration.ofSeconds(1)).close();
        try (MultiLease all = a.acquireAll(MultiLockSpec.of(List.of("t1", "t2")).lease(Duration.ofSeconds(20))
                .waitFor(Duration.ofSeconds(1)))) {
            assertThat(all.fencingToken("t1")).isEqualTo(all.part("t1").fencingToken());
            assertThat(all.fencingToken("t2")).isEqualTo(all.part("t2").fencingToken());
            assertThat(all.remaining()).isLessThanOrEqualTo(all.part("t1").remaining().plusMillis(50))
                    .isGreaterThan(Duration.ofSeconds(10));
            all.extend(Duration.ofSeconds(5));
            assertThat(all.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(5));
            all.ensureValid();
            assertThatThrownBy(() -> all.fencingToken("other")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("[t1, t2]");
        }
    }

    @Test
    void losingOnePartIsOneLossOfTheWholeAndCloseStillReleasesTheOthers() throws Exception {
        MultiLease all = a.acquireAll(List.of("p", "q", "r"), Duration.ofSeconds(1));
        AtomicInteger told = new AtomicInteger();
        AtomicReference<LockLostEvent> event = new AtomicReference<>();
        all.onLost(e -> {
            told.incrementAndGet();
            event.set(e);
        });
        server.forget("q");
        b.acquire("q", Duration.ofSeconds(5)).close(); // someone else takes it meanwhile
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (told.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(told.get()).isEqualTo(1);
        assertThat(event.get().key()).isEqualTo("q");
        assertThat(all.isValid()).isFalse();
        assertThat(all.remaining()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(all::ensureValid).isInstanceOf(LockLostException.class);
        assertThat(server.isHeld("p")).as("the other parts stay held until close").isTrue();
        AtomicInteger late = new AtomicInteger();
        all.onLost(e -> late.incrementAndGet());
        assertThat(late.get()).as("a listener added after the loss is told at once").isEqualTo(1);
        assertThatThrownBy(all::close).isInstanceOf(LockLostException.class);
        assertThat(server.isHeld("p")).isFalse();
        assertThat(server.isHeld("r")).isFalse();
        assertThat(told.get()).isEqualTo(1);
        all.close(); // idempotent
    }

    @Test
    void aPartTheThreadAlreadyHoldsNests() {
        try (LockLease outer = a.acquire("a", Duration.ofSeconds(1))) {
            try (MultiLease all = a.acquireAll(List.of("b", "a"), Duration.ofSeconds(1))) {
                assertThat(all.part("a").holdCount()).isEqualTo(2);
                assertThat(all.fencingToken("a")).isEqualTo(outer.fencingToken());
            }
            assertThat(server.isHeld("a")).as("the outer lease keeps it").isTrue();
            assertThat(server.isHeld("b")).isFalse();
        }
    }

    @Test
    void overlappingSetsInOppositeOrdersDoNotDeadlock() throws Exception {
        int rounds = 200;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger inside = new AtomicInteger();
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            LockClient client = t % 2 == 0 ? a : b;
            List<String> keys = t % 2 == 0 ? List.of("k1", "k2", "k3") : List.of("k3", "k2", "k1");
            threads[t] = new Thread(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        try (MultiLease all = client.acquireAll(keys, Duration.ofSeconds(30))) {
                            assertThat(inside.incrementAndGet()).isEqualTo(1);
                            inside.decrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join(50_000);
            assertThat(thread.isAlive()).as("deadlocked").isFalse();
        }
        assertThat(failure.get()).isNull();
    }

    /** Records the key of every acquire the core sends. */
    private record RecordingBackend(LocalLockBackend delegate, List<String> requested) implements LockBackend {
        public String name() {
            return delegate.name();
        }

        public BackendGuarantees guarantees() {
            return delegate.guarantees();
        }

        public boolean supportsSharedMode() {
            return delegate.supportsSharedMode();
        }

        public Attempt tryAcquire(LockRequest request) {
            requested.add(request.key());
            return delegate.tryAcquire(request);
        }

        public List<Grant> tryAcquireAll(List<LockRequest> requests) {
            requests.forEach(request -> requested.add(request.key()));
            return delegate.tryAcquireAll(requests);
        }

        public Optional<Grant> acquire(LockRequest request, Duration wait) throws InterruptedException {
            requested.add(request.key());
            return delegate.acquire(request, wait);
        }

        public java.util.Optional<Duration> renew(Grant grant, Duration lease) {
            return delegate.renew(grant, lease);
        }

        public boolean release(Grant grant) {
            return delegate.release(grant);
        }

        public dev.mortise.lock.spi.KeyState inspect(String key) {
            return delegate.inspect(key);
        }

        public void ping() {
            delegate.ping();
        }

        public void close() {
            delegate.close();
        }
    }
}
