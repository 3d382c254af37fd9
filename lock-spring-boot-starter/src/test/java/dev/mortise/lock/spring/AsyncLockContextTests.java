package dev.mortise.lock.spring;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockContext;
import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15 items 6 and 7 (reactive part): the lease of an async method never shows in
 * {@link LockContext} of the pooled thread that called or acquired it once that call
 * returned; async code finds its lease in the Reactor Context ({@link ReactiveLockContext})
 * or through {@code @FencingToken}; nested reactive calls on one key within one chain
 * re-enter instead of waiting for themselves.
 */
class AsyncLockContextTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner().withBean(Inner.class)
            .withBean(Jobs.class);

    @Test
    void aPendingFutureLeaseIsNotInTheContextOfTheNextTaskOnThatThread() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                CompletableFuture<String> work = new CompletableFuture<>();
                CompletableFuture<String> pending = pool.submit(() -> jobs.future("tenant-a", work)).get(5, TimeUnit.SECONDS);
                assertThat(pending).isNotDone();
                // The next, unrelated request on the same pooled thread.
                List<LockLease> seen = pool.submit(LockContext::all).get(5, TimeUnit.SECONDS);
                assertThat(seen).as("another request's lease on this pooled thread").isEmpty();
                work.complete("done");
                assertThat(pending.get(5, TimeUnit.SECONDS)).isEqualTo("done");
            } finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void aReactiveBodyFindsItsLeaseInTheReactorContextAndNoneOnTheThread() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            StepVerifier.create(jobs.leaseKeys("r", 0L))
                    .expectNext("r|token-injected|thread:none")
                    .verifyComplete();
        });
    }

    @Test
    void nestedReactiveCallsOnOneKeyWithinOneChainReEnter() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            StepVerifier.create(jobs.outer("n"))
                    .expectNext("outer(inner)")
                    .expectComplete()
                    .verify(Duration.ofSeconds(5));
            assertThat(context.getBean(LockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void twoSeparateChainsOnOneKeyStillExcludeEachOther() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            Sinks.One<String> gate = Sinks.one();
            var first = jobs.hold("x", gate.asMono()).subscribe();
            AsyncCancellationTests.await(() -> !context.getBean(LockClient.class).heldLocks().isEmpty());
            StepVerifier.create(jobs.failFast("x")).verifyError(LockBusyException.class);
            gate.tryEmitValue("go");
            first.dispose();
        });
    }

    public static class Inner {
        @DistributedLock(key = "#key", waitFor = "300ms")
        public Mono<String> innerLocked(String key) {
            return Mono.just("inner");
        }
    }

    public static class Jobs {
        private final Inner inner;

        public Jobs(Inner inner) {
            this.inner = inner;
        }

        @DistributedLock(key = "#key", waitFor = "5s")
        public CompletableFuture<String> future(String key, CompletableFuture<String> work) {
            return work;
        }

        @DistributedLock(key = "#key")
        public Mono<String> leaseKeys(String key, @FencingToken long token) {
            return ReactiveLockContext.current()
                    .map(lease -> lease.key() + "|" + (lease.fencingToken() == token ? "token-injected" : "mismatch"))
                    .publishOn(reactor.core.scheduler.Schedulers.parallel())
                    .map(text -> text + "|thread:" + LockContext.current().map(LockLease::key).orElse("none"));
        }

        @DistributedLock(key = "#key", waitFor = "300ms")
        public Mono<String> outer(String key) {
            return inner.innerLocked(key).map(value -> "outer(" + value + ")");
        }

        @DistributedLock(key = "#key")
        public Mono<String> hold(String key, Mono<String> gate) {
            return gate;
        }

        @DistributedLock(key = "#key", onBusy = OnBusy.FAIL)
        public Mono<String> failFast(String key) {
            return Mono.just("ran");
        }
    }
}
