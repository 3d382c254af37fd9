package dev.mortise.lock.spring.actuate;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.LostReason;
import dev.mortise.lock.spring.DistributedLock;
import dev.mortise.lock.spring.LockAccess;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import dev.mortise.lock.spring.autoconfigure.MortiseLockEndpointAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code locks} endpoint lists this instance's holds and force-releases one. */
class LocksEndpointTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                    MortiseLockEndpointAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=local", "management.endpoints.web.exposure.include=locks")
            .withBean(Worker.class);

    @Test
    void readOnlyByDefault() {
        runner.run(context -> assertThat(writeOperations(context.getBean(LocksEndpoint.class))).isEmpty());
        runner.withPropertyValues("mortise.lock.actuator.force-release.enabled=false")
                .run(context -> assertThat(writeOperations(context.getBean(LocksEndpoint.class))).isEmpty());
    }

    @Test
    void forceReleaseOnlyWhenEnabled() {
        runner.withPropertyValues("mortise.lock.actuator.force-release.enabled=true")
                .run(context -> assertThat(writeOperations(context.getBean(LocksEndpoint.class)))
                        .containsExactly("release"));
    }

    /** The operations the actuator would expose as POST, found as its endpoint discoverer finds them. */
    private static java.util.List<String> writeOperations(Object endpoint) {
        return org.springframework.core.MethodIntrospector.selectMethods(
                        org.springframework.aop.support.AopUtils.getTargetClass(endpoint),
                        (org.springframework.core.MethodIntrospector.MetadataLookup<Object>) method ->
                                org.springframework.core.annotation.AnnotatedElementUtils.findMergedAnnotation(method,
                                        org.springframework.boot.actuate.endpoint.annotation.WriteOperation.class))
                .keySet().stream().map(java.lang.reflect.Method::getName).toList();
    }

    @Test
    void listsHeldLocksAndReleasesOne() {
        runner.withPropertyValues("mortise.lock.actuator.force-release.enabled=true").run(context -> {
            ForceReleaseLocksEndpoint endpoint = (ForceReleaseLocksEndpoint) context.getBean(LocksEndpoint.class);
            Worker worker = context.getBean(Worker.class);
            assertThat(endpoint.locks().held()).isEmpty();
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> worker.work("7"));
            assertThat(worker.started().await(5, TimeUnit.SECONDS)).isTrue();

            LocksEndpoint.LocksDescriptor locks = endpoint.locks();
            assertThat(locks.defaultBackend()).isEqualTo("local");
            assertThat(locks.backends()).containsExactly("local");
            assertThat(locks.held()).singleElement().satisfies(held -> {
                assertThat(held.key()).isEqualTo("job:7");
                assertThat(held.backend()).isEqualTo("local");
                assertThat(held.fencingToken()).isPositive();
                assertThat(Duration.parse(held.heldFor()).isNegative()).isFalse();
                assertThat(Duration.parse(held.remaining())).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
                assertThat(Instant.parse(held.acquiredAt())).isBeforeOrEqualTo(Instant.now());
                assertThat(held.renewed()).isTrue();
                assertThat(held.mode()).isEqualTo("write");
                assertThat(held.multiKey()).isNull();
            });

            LocksEndpoint.ReleaseDescriptor released = endpoint.release("job:7", null);
            assertThat(released.released()).isTrue();
            assertThat(released.backend()).isEqualTo("local");
            worker.finish().countDown();
            assertThat(running).failsWithin(5, TimeUnit.SECONDS).withThrowableThat()
                    .havingRootCause().isInstanceOf(LockLostException.class)
                    .satisfies(e -> assertThat(((LockLostException) e).reason()).isEqualTo(LostReason.FORCE_RELEASED));
            assertThat(endpoint.locks().held()).isEmpty();
            assertThat(endpoint.release("job:7", "local").released()).isFalse();
        });
    }

    @Test
    void showsTheModeAndTheKeysOfAMultiKeyHold() {
        runner.run(context -> {
            LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
            Worker worker = context.getBean(Worker.class);
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> worker.workOn(List.of("b", "a")));
            assertThat(worker.started().await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(endpoint.locks().held()).hasSize(2).allSatisfy(held -> {
                assertThat(held.mode()).isEqualTo("write");
                assertThat(held.multiKey()).containsExactly("a", "b");
            }).extracting(LocksEndpoint.HeldLockDescriptor::key).containsExactlyInAnyOrder("a", "b");
            worker.finish().countDown();
            running.get(5, TimeUnit.SECONDS);
            assertThat(endpoint.locks().held()).isEmpty();
        });
    }

    /** Every hold shows its mode, whether taken by an annotated call or through the {@code LockClient} API. */
    @Test
    void showsTheModeOfEveryHold() {
        runner.run(context -> {
            LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
            LockClient client = context.getBean(LockClient.class);
            Worker worker = context.getBean(Worker.class);
            try (LockLease read = client.acquire(LockSpec.of("api:read").shared().waitFor(Duration.ofSeconds(1)));
                 LockLease write = client.acquire("api:write", Duration.ofSeconds(1))) {
                CompletableFuture<Void> running = CompletableFuture.runAsync(() -> worker.read("9"));
                assertThat(worker.started().await(5, TimeUnit.SECONDS)).isTrue();
                assertThat(endpoint.locks().held()).extracting(LocksEndpoint.HeldLockDescriptor::key,
                        LocksEndpoint.HeldLockDescriptor::mode).containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("api:read", "read"),
                        org.assertj.core.groups.Tuple.tuple("api:write", "write"),
                        org.assertj.core.groups.Tuple.tuple("job:9", "read"));
                worker.finish().countDown();
                running.get(5, TimeUnit.SECONDS);
            }
        });
    }

    @Test
    void notAvailableUnlessExposed() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class,
                        MortiseLockEndpointAutoConfiguration.class))
                .withPropertyValues("mortise.lock.backend=local")
                .run(context -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
    }

    public static class Worker {
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch finish = new CountDownLatch(1);

        public CountDownLatch started() {
            return started;
        }

        public CountDownLatch finish() {
            return finish;
        }

        @DistributedLock(key = "#keys")
        public void workOn(List<String> keys) {
            work(null);
        }

        @DistributedLock(key = "'job:' + #id", mode = LockAccess.READ)
        public void read(String id) {
            work(null);
        }

        @DistributedLock(key = "'job:' + #id")
        public void work(String id) {
            started.countDown();
            try {
                finish.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
