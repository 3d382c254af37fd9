package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.local.LocalLockBackend;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Results that complete later hold the lock until they complete. */
class DistributedLockReturnTypeTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner().withBean(AsyncJobs.class);

    private static boolean held(org.springframework.context.ApplicationContext context, String key) {
        return ((LocalLockBackend) context.getBean(LocalLockBackend.class)).server().isHeld(key);
    }

    @Test
    void completableFutureHoldsTheLockUntilItCompletes() {
        runner.run(context -> {
            AsyncJobs jobs = context.getBean(AsyncJobs.class);
            CompletableFuture<String> pending = new CompletableFuture<>();
            CompletableFuture<String> result = jobs.future("f", pending);
            assertThat(held(context, "f")).isTrue();
            assertThat(result).isNotDone();
            pending.complete("done");
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(held(context, "f")).isFalse();
        });
    }

    @Test
    void twoPendingFuturesFromOneThreadDoNotShareTheLock() {
        runner.run(context -> {
            AsyncJobs jobs = context.getBean(AsyncJobs.class);
            CompletableFuture<String> pending = new CompletableFuture<>();
            CompletableFuture<String> first = jobs.future("f", pending);
            // Same calling thread, first still pending: the second must not re-enter the first's hold.
            CompletableFuture<String> second = jobs.failFast("f");
            assertThatThrownBy(second::join).hasCauseInstanceOf(LockBusyException.class);
            assertThat(first).isNotDone();
            pending.complete("done");
            assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        });
    }

    @Test
    void failedStageReleasesAndKeepsItsFailure() {
        runner.run(context -> {
            AsyncJobs jobs = context.getBean(AsyncJobs.class);
            CompletableFuture<String> pending = new CompletableFuture<>();
            CompletableFuture<String> result = jobs.future("f", pending);
            pending.completeExceptionally(new IllegalStateException("boom"));
            assertThatThrownBy(result::join).isInstanceOf(CompletionException.class).hasRootCauseMessage("boom");
            assertThat(held(context, "f")).isFalse();
        });
    }

    @Test
    void completionStageSkipAndTimeoutAreCompletedFutures() {
        runner.run(context -> {
            AsyncJobs jobs = context.getBean(AsyncJobs.class);
            try (LockLease ignored = LockTestSupport.holdElsewhere(context.getBean(LockClient.class), "f")) {
                assertThat(jobs.skipStage("f").toCompletableFuture().get(1, TimeUnit.SECONDS)).isNull();
                CompletableFuture<String> timedOut = jobs.future("f", new CompletableFuture<>());
                assertThatThrownBy(timedOut::join).hasCauseInstanceOf(LockTimeoutException.class);
            }
            assertThat(jobs.calls()).isZero();
        });
    }

    @Test
    void monoAcquiresOnSubscribeAndReleasesOnComplete() {
        runner.run(context -> {
            AsyncJobs jobs = context.getBean(AsyncJobs.class);
            Sinks.One<String> sink = Sinks.one();
            Mono<String> mono = jobs.mono("m", sink.asMono(), 0L);
            assertThat(held(context, "m")).isFalse();
            assertThat(jobs.calls()).as("not invoked before subscription").isZero();
            StepVerifier.create(mono)
                    .then(() -> {
                        await(() -> held(context, "m"));
                        sink.tryEmitValue("v");
                    })
                    .expectNext("v:token")
                    .verifyComplete();
            assertThat(held(context, "m")).isFalse();
        });
    }

    @Test
    void monoReleasesOnErrorAndOnCancel() {
        runner.run(context -> {
            AsyncJobs jobs = context.getBean(AsyncJobs.class);
            StepVerifier.create(jobs.mono("m", Mono.error(new IllegalStateException("boom")), 0L))
                    .verifyErrorMessage("boom");
            assertThat(held(context, "m")).isFalse();
            StepVerifier.create(jobs.mono("m", Mono.never(), 0L))
                    .then(() -> await(() -> held(context, "m")))
                    .thenCancel()
                    .verify(Duration.ofSeconds(5));
            await(() -> !held(context, "m"));
        });
    }

    @Test
    void fluxHoldsTheLockUntilItTerminates() {
        runner.run(context -> {
            AsyncJobs jobs = context.getBean(AsyncJobs.class);
            Sinks.Many<Integer> sink = Sinks.many().unicast().onBackpressureBuffer();
            StepVerifier.create(jobs.flux("x", sink.asFlux()))
                    .then(() -> {
                        await(() -> held(context, "x"));
                        sink.tryEmitNext(1);
                    })
                    .expectNext(1)
                    .then(() -> {
                        assertThat(held(context, "x")).isTrue();
                        sink.tryEmitComplete();
                    })
                    .verifyComplete();
            assertThat(held(context, "x")).isFalse();
        });
    }

    @Test
    void reactiveSkipIsEmptyAndFailIsAnError() {
        runner.run(context -> {
            AsyncJobs jobs = context.getBean(AsyncJobs.class);
            try (LockLease ignored = LockTestSupport.holdElsewhere(context.getBean(LockClient.class), "r")) {
                StepVerifier.create(jobs.skipMono("r")).verifyComplete();
                StepVerifier.create(jobs.skipFlux("r")).verifyComplete();
                StepVerifier.create(jobs.failMono("r")).verifyError(LockBusyException.class);
            }
            assertThat(jobs.calls()).isZero();
        });
    }

    private static void await(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 5s");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    public static class AsyncJobs {
        private final AtomicInteger calls = new AtomicInteger();

        public int calls() {
            return calls.get();
        }

        @DistributedLock(key = "#key", waitFor = "100ms")
        public CompletableFuture<String> future(String key, CompletableFuture<String> work) {
            calls.incrementAndGet();
            return work;
        }

        @DistributedLock(key = "#key", onBusy = OnBusy.FAIL)
        public CompletableFuture<String> failFast(String key) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(key = "#key", onBusy = OnBusy.SKIP)
        public CompletionStage<String> skipStage(String key) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        /** Async code gets its token as a parameter (or from ReactiveLockContext), not from the thread. */
        @DistributedLock(key = "#key")
        public Mono<String> mono(String key, Mono<String> work, @FencingToken long token) {
            calls.incrementAndGet();
            return work.map(value -> value + (token > 0 ? ":token" : ":none"));
        }

        @DistributedLock(key = "#key")
        public Flux<Integer> flux(String key, Flux<Integer> work) {
            calls.incrementAndGet();
            return work;
        }

        @DistributedLock(key = "#key", onBusy = OnBusy.SKIP)
        public Mono<String> skipMono(String key) {
            calls.incrementAndGet();
            return Mono.just("ran");
        }

        @DistributedLock(key = "#key", onBusy = OnBusy.SKIP)
        public Flux<String> skipFlux(String key) {
            calls.incrementAndGet();
            return Flux.just("ran");
        }

        @DistributedLock(key = "#key", onBusy = OnBusy.FAIL)
        public Mono<String> failMono(String key) {
            calls.incrementAndGet();
            return Mono.just("ran");
        }
    }
}
