package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.spring.StallingBackend.Stall;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15 item 1: a cancelled {@code Mono}/{@code Flux} subscription or a cancelled
 * {@code CompletableFuture} releases its lock whatever point the cancellation hits —
 * before the acquire, while it waits for the server, after the server granted it but
 * before the answer is back, and while the method's publisher runs. Checked on the
 * server and in the client's {@code heldLocks()}.
 */
class AsyncCancellationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=stalling", "mortise.lock.wait-for=5s")
            .withBean(StallingBackend.class, StallingBackend::new)
            .withBean(Jobs.class);

    @Test
    void monoCancelledBeforeTheAcquireStartsHoldsNothing() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            Disposable subscription = jobs.mono("k", Mono.never()).subscribe();
            subscription.dispose();
            assertReleased(context, "k");
        });
    }

    @Test
    void monoCancelledWhileTheAcquireWaitsForTheServerReleasesTheLateGrant() {
        runner.run(context -> cancelWhileStalled(context, Stall.BEFORE_GRANT, true));
    }

    @Test
    void monoCancelledAfterTheGrantBeforeTheAnswerReleasesIt() {
        runner.run(context -> cancelWhileStalled(context, Stall.AFTER_GRANT, true));
    }

    @Test
    void fluxCancelledAfterTheGrantBeforeTheAnswerReleasesIt() {
        runner.run(context -> cancelWhileStalled(context, Stall.AFTER_GRANT, false));
    }

    @Test
    void fluxCancelledWhileTheAcquireWaitsForTheServerReleasesTheLateGrant() {
        runner.run(context -> cancelWhileStalled(context, Stall.BEFORE_GRANT, false));
    }

    @Test
    void monoAndFluxCancelledWhileTheMethodRunsRelease() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            StallingBackend backend = context.getBean(StallingBackend.class);
            Disposable mono = jobs.mono("m", Mono.never()).subscribe();
            await(() -> backend.server().isHeld("m"));
            mono.dispose();
            assertReleased(context, "m");
            Disposable flux = jobs.flux("f", Flux.never()).subscribe();
            await(() -> backend.server().isHeld("f"));
            flux.dispose();
            assertReleased(context, "f");
        });
    }

    @Test
    void cancellingTheReturnedFutureReleasesTheLockAndCancelsTheMethodsFuture() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            StallingBackend backend = context.getBean(StallingBackend.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = jobs.future("c", work);
            assertThat(backend.server().isHeld("c")).isTrue();
            result.cancel(true);
            assertReleased(context, "c");
            assertThat(work).as("the method's own future is cancelled with the call").isCancelled();
        });
    }

    private static void cancelWhileStalled(ApplicationContext context, Stall where, boolean mono) throws Exception {
        Jobs jobs = context.getBean(Jobs.class);
        StallingBackend backend = context.getBean(StallingBackend.class);
        backend.stallAt(where);
        Disposable subscription = mono ? jobs.mono("s", Mono.never()).subscribe() : jobs.flux("s", Flux.never()).subscribe();
        assertThat(backend.awaitStalled()).isTrue();
        subscription.dispose();
        backend.proceed();
        assertReleased(context, "s");
        assertThat(jobs.calls()).as("a cancelled call never runs the method").isZero();
    }

    private static void assertReleased(ApplicationContext context, String key) {
        StallingBackend backend = context.getBean(StallingBackend.class);
        LockClient client = context.getBean(LockClient.class);
        await(() -> !backend.server().isHeld(key) && client.heldLocks().isEmpty());
        // And it stays free: nothing re-acquires it behind our back.
        sleep(300);
        assertThat(backend.server().isHeld(key)).as("held on the server").isFalse();
        assertThat(client.heldLocks()).as("held by the client").isEmpty();
    }

    static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10s");
            }
            sleep(10);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    public static class Jobs {
        private final AtomicInteger calls = new AtomicInteger();

        public int calls() {
            return calls.get();
        }

        @DistributedLock(key = "#key")
        public Mono<String> mono(String key, Mono<String> work) {
            calls.incrementAndGet();
            return work;
        }

        @DistributedLock(key = "#key")
        public Flux<String> flux(String key, Flux<String> work) {
            calls.incrementAndGet();
            return work;
        }

        @DistributedLock(key = "#key")
        public CompletableFuture<String> future(String key, CompletableFuture<String> work) {
            calls.incrementAndGet();
            return work;
        }
    }
}
