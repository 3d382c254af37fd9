package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.migration.MigratingLockBackend;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockMetricsAutoConfiguration;
import dev.mortise.lock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
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
 * {@code @DistributedLock(mode = READ | WRITE)} on the in-process backend (which supports shared
 * locks): readers of a key run together, a writer excludes them and they it, the mode reaches the
 * metrics of every part, and a backend without shared mode refuses a reader clearly.
 */
class DistributedLockModeTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockMetricsAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=local", "mortise.lock.wait-for=5s")
            .withBean(SimpleMeterRegistry.class)
            .withBean(Catalog.class);

    @Test
    void acquiresAndHoldsAreTaggedWithTheMode() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Catalog catalog = context.getBean(Catalog.class);
            assertThat(catalog.read("1")).isEqualTo(1);
            catalog.write("1");
            catalog.write("2");
            catalog.readAll(List.of("3", "4", "5"));
            assertThat(acquired(registry, "read")).as("one single read and three parts of a multi-key read")
                    .isEqualTo(4);
            assertThat(acquired(registry, "write")).isEqualTo(2);
            assertThat(registry.find(LockMetrics.HELD).tag("name", "catalog").tag(LockMetrics.TAG_MODE, "read")
                    .longTaskTimer()).isNotNull();
            assertThat(registry.get(LockMetrics.ACQUIRE).tag("name", LockMetrics.PROGRAMMATIC).timers())
                    .allSatisfy(t -> assertThat(t.getId().getTag(LockMetrics.TAG_MODE)).isEqualTo("write"));
        });
    }

    /** Locks taken through the {@code LockClient} API are tagged with their mode as annotated ones are. */
    @Test
    void apiLocksAreTaggedWithTheirMode() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LockClient client = context.getBean(LockClient.class);
            try (LockLease read = client.acquire(LockSpec.of("api:r").shared().waitFor(Duration.ofSeconds(1)))) {
                assertThat(registry.get(LockMetrics.HELD).tag("name", LockMetrics.PROGRAMMATIC)
                        .tag(LockMetrics.TAG_MODE, "read").longTaskTimer().activeTasks()).isEqualTo(1);
                read.extend(Duration.ofSeconds(5));
                try (LockLease other = client.acquire(LockSpec.of("api:r").shared().owner("other")
                        .waitFor(Duration.ofSeconds(1)))) {
                    assertThat(other.fencingToken()).isNotEqualTo(read.fencingToken());
                }
            }
            client.acquire("api:w", Duration.ofSeconds(1)).close();
            assertThat(registry.get(LockMetrics.ACQUIRE).tag("name", LockMetrics.PROGRAMMATIC)
                    .tag(LockMetrics.TAG_MODE, "read").tag("outcome", "acquired").timer().count()).isEqualTo(2);
            assertThat(registry.get(LockMetrics.ACQUIRE).tag("name", LockMetrics.PROGRAMMATIC)
                    .tag(LockMetrics.TAG_MODE, "write").tag("outcome", "acquired").timer().count()).isEqualTo(1);
            assertThat(registry.get(LockMetrics.RENEWALS).tag("name", LockMetrics.PROGRAMMATIC)
                    .tag(LockMetrics.TAG_MODE, "read").counter().count()).isGreaterThanOrEqualTo(1);
            assertThat(registry.get(LockMetrics.HELD).tag("name", LockMetrics.PROGRAMMATIC)
                    .tag(LockMetrics.TAG_MODE, "read").longTaskTimer().activeTasks()).isZero();
        });
    }

    @Test
    void twoReadCallsOnOneKeyRunAtTheSameTime() {
        runner.run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            String id = UUID.randomUUID().toString();
            CountDownLatch inside = new CountDownLatch(2);
            CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> catalog.readTogether(id, inside));
            CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> catalog.readTogether(id, inside));
            assertThat(first.get(30, TimeUnit.SECONDS)).as("the first reader saw the second inside").isTrue();
            assertThat(second.get(30, TimeUnit.SECONDS)).as("the second reader saw the first inside").isTrue();
        });
    }

    @Test
    void aWriteCallExcludesAReadCallAndAReadCallAWriteCall() {
        runner.run(context -> {
            Catalog catalog = context.getBean(Catalog.class);
            String id = UUID.randomUUID().toString();

            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch leave = new CountDownLatch(1);
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> catalog.writeHolding(id, entered, leave));
            assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> catalog.tryRead(id)).isInstanceOf(LockBusyException.class);
            leave.countDown();
            writing.get(20, TimeUnit.SECONDS);

            CountDownLatch reading = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            CompletableFuture<Void> read = CompletableFuture.runAsync(() -> catalog.readHolding(id, reading, done));
            assertThat(reading.await(20, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> catalog.tryWrite(id)).isInstanceOf(LockBusyException.class);
            assertThat(catalog.tryRead(id)).as("another reader still gets in").isTrue();
            done.countDown();
            read.get(20, TimeUnit.SECONDS);
            assertThat(catalog.tryWrite(id)).isTrue();
        });
    }

    /** A backend whose {@code supportsSharedMode()} is false: a READ call fails with the core's message. */
    @Test
    void aReadCallOnABackendWithoutSharedModeFailsNamingKeyBackendAndTheFix() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class))
                .withPropertyValues("mortise.lock.wait-for=1s")
                .withBean("migrating", LockBackend.class, () -> new MigratingLockBackend(
                        exclusiveOnly(new LocalLockBackend(new LocalLockServer("old"))),
                        new LocalLockBackend(new LocalLockServer("new"))))
                .withBean(Catalog.class)
                .run(context -> {
                    assertThat(context.getBean(LockBackend.class).supportsSharedMode()).isFalse();
                    String backend = context.getBean(LockClient.class).backendName();
                    Catalog catalog = context.getBean(Catalog.class);
                    assertThatThrownBy(() -> catalog.read("7")).isInstanceOf(LockException.class)
                            .hasMessageContaining("'item:7'").hasMessageContaining("'" + backend + "'")
                            .hasMessageContaining("supportsSharedMode()");
                    catalog.write("7");
                });
    }

    /**
     * A store that grants exclusive holds only (a third-party backend without shared mode): the
     * migration over it has no shared mode either.
     */
    private static LockBackend exclusiveOnly(LockBackend store) {
        return new LockBackend() {
            @Override
            public String name() {
                return store.name();
            }

            @Override
            public dev.mortise.lock.spi.BackendGuarantees guarantees() {
                return store.guarantees();
            }

            @Override
            public dev.mortise.lock.spi.Attempt tryAcquire(dev.mortise.lock.spi.LockRequest request) {
                return store.tryAcquire(request);
            }

            @Override
            public java.util.Optional<java.time.Duration> renew(dev.mortise.lock.spi.Grant grant, java.time.Duration lease) {
                return store.renew(grant, lease);
            }

            @Override
            public boolean release(dev.mortise.lock.spi.Grant grant) {
                return store.release(grant);
            }

            @Override
            public dev.mortise.lock.spi.KeyState inspect(String key) {
                return store.inspect(key);
            }

            @Override
            public void ping() {
                store.ping();
            }

            @Override
            public void close() {
                store.close();
            }
        };
    }

    private static long acquired(MeterRegistry registry, String mode) {
        return registry.get(LockMetrics.ACQUIRE).tag("name", "catalog").tag(LockMetrics.TAG_MODE, mode)
                .tag("outcome", "acquired").timer().count();
    }

    /** Latches travel as arguments: fields of a class-based proxy are not the target's. */
    public static class Catalog {
        private final MeterRegistry registry;

        public Catalog(org.springframework.beans.factory.ObjectProvider<MeterRegistry> registry) {
            this.registry = registry.getIfAvailable();
        }

        @DistributedLock(key = "'item:' + #id", name = "catalog", mode = LockAccess.READ)
        public long read(String id) {
            return registry == null ? 0 : registry.get(LockMetrics.HELD).tag("name", "catalog")
                    .tag(LockMetrics.TAG_MODE, "read").longTaskTimer().activeTasks();
        }

        @DistributedLock(key = "'item:' + #id", name = "catalog")
        public void write(String id) {
        }

        @DistributedLock(key = "#ids", name = "catalog", mode = LockAccess.READ)
        public void readAll(List<String> ids) {
        }

        /** Enters, then waits for {@code inside} to reach zero: true only if another reader was inside at once. */
        @DistributedLock(key = "'item:' + #id", mode = LockAccess.READ)
        public boolean readTogether(String id, CountDownLatch inside) {
            inside.countDown();
            return await(inside);
        }

        @DistributedLock(key = "'item:' + #id", mode = LockAccess.READ)
        public void readHolding(String id, CountDownLatch entered, CountDownLatch leave) {
            entered.countDown();
            await(leave);
        }

        @DistributedLock(key = "'item:' + #id")
        public void writeHolding(String id, CountDownLatch entered, CountDownLatch leave) {
            entered.countDown();
            await(leave);
        }

        @DistributedLock(key = "'item:' + #id", mode = LockAccess.READ, onBusy = OnBusy.FAIL)
        public boolean tryRead(String id) {
            return true;
        }

        @DistributedLock(key = "'item:' + #id", onBusy = OnBusy.FAIL)
        public boolean tryWrite(String id) {
            return true;
        }

        private static boolean await(CountDownLatch latch) {
            try {
                return latch.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
