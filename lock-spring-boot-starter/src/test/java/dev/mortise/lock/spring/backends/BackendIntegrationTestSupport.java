package dev.mortise.lock.spring.backends;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.LockAccess;
import dev.mortise.lock.spring.LockBusyException;
import dev.mortise.lock.spring.OnBusy;
import dev.mortise.lock.spring.actuate.LockBackendHealthIndicator;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockBackendsAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The same Spring Boot application against a real server of each backend, switched by
 * properties only. Two application contexts on one server stand for two instances.
 */
abstract class BackendIntegrationTestSupport {

    /** The backend name, as in {@code mortise.lock.backend}. */
    abstract String backend();

    /** The connection properties of the running test server. */
    abstract String[] connection();

    /** Adjusts the runner (client beans to reuse, ...). */
    ApplicationContextRunner customize(ApplicationContextRunner runner) {
        return runner;
    }

    final ApplicationContextRunner runner() {
        return customize(new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockBackendsAutoConfiguration.class,
                        MortiseLockAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=" + backend(), "mortise.lock.wait-for=10s")
                .withPropertyValues(connection())
                .withBean(Inventory.class));
    }

    /**
     * The fencing tokens of two successive grants on a fresh key, each released before the
     * next, through the {@link LockClient} of {@code context}.
     */
    static long[] twoSuccessiveTokens(org.springframework.context.ApplicationContext context) {
        LockClient client = context.getBean(LockClient.class);
        String key = "tokens:" + UUID.randomUUID();
        long[] tokens = new long[2];
        for (int i = 0; i < 2; i++) {
            try (LockLease lease = client.acquire(key, Duration.ofSeconds(10))) {
                tokens[i] = lease.fencingToken();
            }
        }
        return tokens;
    }

    @Test
    void annotatedMethodLocksOnTheBackendChosenByProperty() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            LockClient client = context.getBean(LockClient.class);
            assertThat(client.backendName()).isEqualTo(backend());
            String sku = UUID.randomUUID().toString();
            Inventory inventory = context.getBean(Inventory.class);
            assertThat(inventory.backendOf(sku)).isEqualTo(backend());
            assertThat(client.heldLocks()).isEmpty();
        });
    }

    @Test
    void twoInstancesExcludeEachOtherAndTokensGrow() {
        runner().run(first -> runner().run(second -> {
            Inventory one = first.getBean(Inventory.class);
            Inventory two = second.getBean(Inventory.class);
            String sku = UUID.randomUUID().toString();
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Long> holding = CompletableFuture.supplyAsync(() -> one.hold(sku, entered, release));
            assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> two.tryReserve(sku)).isInstanceOf(LockBusyException.class)
                    .hasMessageContaining(backend());
            release.countDown();
            long firstToken = holding.get(20, TimeUnit.SECONDS);
            long secondToken = two.reserve(sku);
            assertThat(secondToken).isGreaterThan(firstToken);
        }));
    }

    /** A key that is a collection or array is one multi-key lock: overlapping sets exclude each other. */
    @Test
    void twoInstancesExcludeEachOtherOnOverlappingKeySets() {
        runner().run(first -> runner().run(second -> {
            Inventory one = first.getBean(Inventory.class);
            Inventory two = second.getBean(Inventory.class);
            String x = UUID.randomUUID().toString();
            String y = UUID.randomUUID().toString();
            String z = UUID.randomUUID().toString();
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Integer> holding = CompletableFuture.supplyAsync(
                    () -> one.holdAll(new String[] {y, x}, entered, release));
            assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> two.tryReserveAll(List.of(z, y))).isInstanceOf(LockBusyException.class)
                    .hasMessageContaining(backend()).hasMessageContaining(y);
            LockClient secondClient = second.getBean(LockClient.class);
            assertThat(secondClient.heldLocks()).as("the free key taken before the busy one was given back")
                    .isEmpty();
            assertThat(two.tryReserveAll(List.of(z))).as("z is free on the server").isEqualTo(1);
            release.countDown();
            assertThat(holding.get(20, TimeUnit.SECONDS)).isEqualTo(2);
            assertThat(two.tryReserveAll(List.of(z, y, x))).isEqualTo(3);
            assertThat(first.getBean(LockClient.class).heldLocks()).isEmpty();
            assertThat(secondClient.heldLocks()).isEmpty();
        }));
    }

    /**
     * Whether the backend of {@code context} takes shared (read) locks, asked at run time: a
     * backend that gains shared mode (JDBC, still exclusive-only when this was written) then runs
     * the read-write tests below instead of expecting the refusal.
     */
    private boolean sharedMode(org.springframework.context.ApplicationContext context) {
        return context.getBeanProvider(LockBackend.class).orderedStream().filter(b -> b.name().equals(backend()))
                .findFirst().orElseThrow(() -> new AssertionError("no LockBackend bean named " + backend()))
                .supportsSharedMode();
    }

    /** Two instances' {@code mode = READ} calls on one key run at the same time (both inside at once). */
    @Test
    void twoInstancesReadTheSameKeyAtTheSameTime() {
        runner().run(first -> runner().run(second -> {
            Inventory one = first.getBean(Inventory.class);
            Inventory two = second.getBean(Inventory.class);
            String sku = UUID.randomUUID().toString();
            if (!sharedMode(first)) {
                assertThatThrownBy(() -> one.tryRead(sku)).isInstanceOf(LockException.class)
                        .hasMessageContaining("'sku:" + sku + "'").hasMessageContaining("'" + backend() + "'")
                        .hasMessageContaining("supportsSharedMode()");
                assertThat(first.getBean(LockClient.class).heldLocks()).isEmpty();
                return;
            }
            CountDownLatch inside = new CountDownLatch(2);
            CompletableFuture<Boolean> reading = CompletableFuture.supplyAsync(() -> one.readTogether(sku, inside));
            assertThat(two.readTogether(sku, inside)).as("the second instance's reader saw the first inside").isTrue();
            assertThat(reading.get(30, TimeUnit.SECONDS)).as("the first instance's reader saw the second inside")
                    .isTrue();
            assertThat(first.getBean(LockClient.class).heldLocks()).isEmpty();
            assertThat(second.getBean(LockClient.class).heldLocks()).isEmpty();
        }));
    }

    /** A WRITE call on one instance excludes a READ call on the other, and a READ call a WRITE call. */
    @Test
    void twoInstancesWriteExcludesReadAndReadExcludesWrite() {
        runner().run(first -> runner().run(second -> {
            Inventory one = first.getBean(Inventory.class);
            Inventory two = second.getBean(Inventory.class);
            String sku = UUID.randomUUID().toString();
            if (!sharedMode(first)) {
                assertThatThrownBy(() -> two.tryRead(sku)).isInstanceOf(LockException.class)
                        .hasMessageContaining("supportsSharedMode()");
                return;
            }
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Long> writing = CompletableFuture.supplyAsync(() -> one.hold(sku, entered, release));
            assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> two.tryRead(sku)).as("a reader while the other instance writes")
                    .isInstanceOf(LockBusyException.class).hasMessageContaining(backend());
            release.countDown();
            long writeToken = writing.get(20, TimeUnit.SECONDS);

            CountDownLatch reading = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            CompletableFuture<Long> read = CompletableFuture.supplyAsync(() -> one.readHolding(sku, reading, done));
            assertThat(reading.await(20, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> two.tryReserve(sku)).as("a writer while the other instance reads")
                    .isInstanceOf(LockBusyException.class).hasMessageContaining(backend());
            assertThat(two.tryRead(sku)).as("another reader still gets in").isPositive();
            done.countDown();
            assertThat(read.get(20, TimeUnit.SECONDS)).isGreaterThan(writeToken);
            assertThat(two.tryReserve(sku)).isGreaterThan(writeToken);
        }));
    }

    /**
     * Issue 15 item 4: instance A runs a quick job with holdAtLeast = 4s and shuts down at
     * once; instance B cannot run it until 4 s after A took the lock, and can shortly after.
     * On every backend, ZooKeeper too (whose holds are ephemeral nodes that end with the
     * session: a lingering hold leaves a marker that outlives it).
     */
    @Test
    void holdAtLeastSurvivesAGracefulShutdown() {
        String key = UUID.randomUUID().toString();
        Duration holdAtLeast = Duration.ofSeconds(4);
        long[] start = new long[1];
        runner().run(first -> {
            start[0] = System.nanoTime();
            assertThat(first.getBean(Inventory.class).nightly(key)).isTrue();
        });
        runner().run(second -> {
            Inventory inventory = second.getBean(Inventory.class);
            LockClient client = second.getBean(LockClient.class);
            Boolean ran = null;
            long deadline = start[0] + holdAtLeast.plusSeconds(8).toNanos();
            while (ran == null && System.nanoTime() < deadline) {
                long before = System.nanoTime();
                ran = inventory.nightly(key);
                if (ran == null) {
                    Thread.sleep(100);
                } else {
                    assertThat(Duration.ofNanos(before - start[0])).as("B ran before A's holdAtLeast had passed")
                            .isGreaterThanOrEqualTo(holdAtLeast.minusMillis(5));
                }
            }
            assertThat(ran).as("B runs shortly after holdAtLeast").isTrue();
            assertThat(client.heldLocks()).isEmpty();
        });
    }

    @Test
    void healthReportsTheServerUp() {
        runner().run(context -> {
            Health health = new LockBackendHealthIndicator(context.getBean(LockClient.class)).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("backend", backend());
        });
    }

    /** Latches travel as arguments: fields of a class-based proxy are not the target's. */
    public static class Inventory {

        @DistributedLock(key = "'sku:' + #sku")
        public String backendOf(String sku) {
            return LockContext.current().map(LockLease::backend).orElse(null);
        }

        @DistributedLock(key = "'sku:' + #sku")
        public long reserve(String sku) {
            return LockContext.current().orElseThrow().fencingToken();
        }

        @DistributedLock(key = "'sku:' + #sku", onBusy = OnBusy.FAIL)
        public long tryReserve(String sku) {
            return LockContext.current().orElseThrow().fencingToken();
        }

        @DistributedLock(key = "'nightly:' + #key", onBusy = OnBusy.SKIP, holdAtLeast = "4s")
        public Boolean nightly(String key) {
            return true;
        }

        @DistributedLock(key = "#skus")
        public int holdAll(String[] skus, CountDownLatch entered, CountDownLatch release) {
            entered.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return (int) java.util.Arrays.stream(skus).filter(sku -> LockContext.find(sku).isPresent()).count();
        }

        @DistributedLock(key = "#skus", onBusy = OnBusy.FAIL)
        public int tryReserveAll(List<String> skus) {
            return (int) skus.stream().filter(sku -> LockContext.find(sku).isPresent()).count();
        }

        @DistributedLock(key = "'sku:' + #sku", mode = LockAccess.READ, onBusy = OnBusy.FAIL)
        public long tryRead(String sku) {
            return LockContext.current().orElseThrow().fencingToken();
        }

        /** Enters, then waits for {@code inside} to reach zero: true only if another reader was inside at once. */
        @DistributedLock(key = "'sku:' + #sku", mode = LockAccess.READ)
        public boolean readTogether(String sku, CountDownLatch inside) {
            inside.countDown();
            try {
                return inside.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        @DistributedLock(key = "'sku:' + #sku", mode = LockAccess.READ)
        public long readHolding(String sku, CountDownLatch entered, CountDownLatch release) {
            return hold(sku, entered, release);
        }

        @DistributedLock(key = "'sku:' + #sku")
        public long hold(String sku, CountDownLatch entered, CountDownLatch release) {
            entered.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return LockContext.current().orElseThrow().fencingToken();
        }
    }
}
