package dev.mortise.lock.spring;

import dev.mortise.lock.DeadlockCycle;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockDeadlockException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.spi.ForwardingLockBackend;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.spring.autoconfigure.MortiseLockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Issue 31: a {@link LockDeadlockException} that ends the wait of a {@code CompletionStage},
 * {@code Mono} or {@code Flux} method's acquire (the asynchronous path) reaches the caller as itself
 * under every busy policy: never as a SKIP's "nothing", never as a busy or timeout. The core does not
 * watch asynchronous waits yet, so the in-process backend here ends every asynchronous wait as a
 * deadlock's victim would be ended.
 */
class AsyncDeadlockPropagationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MortiseLockAutoConfiguration.class))
            .withPropertyValues("mortise.lock.backend=victim", "mortise.lock.wait-for=5s")
            .withBean(VictimBackend.class)
            .withBean(Accounts.class);

    /**
     * Runs {@code call} while "account" is held by another instance (a client of its own on the server),
     * so the call's acquire waits on the server.
     */
    private void whileBusy(ThrowingConsumer<Accounts> call) {
        runner.run(context -> {
            LockClient client = context.getBean(LockClient.class);
            try (LockClient elsewhere = LockClient.builder(context.getBean(VictimBackend.class)).build();
                 LockLease ignored = elsewhere.acquire("account", Duration.ofSeconds(5))) {
                call.accept(context.getBean(Accounts.class));
            }
            assertThat(context.getBean(Accounts.class).runs()).as("the method never ran").isZero();
            assertThat(client.heldLocks()).isEmpty();
        });
    }

    @Test
    void aCompletionStageFailsWithTheDeadlockUnderWaitAndSkip() {
        whileBusy(accounts -> {
            for (CompletionStage<String> stage : List.of(accounts.stage(), accounts.stageOrSkip())) {
                Throwable failure = catchThrowable(() -> stage.toCompletableFuture().get(30, TimeUnit.SECONDS));
                assertThat(failure).isInstanceOf(ExecutionException.class)
                        .cause().isInstanceOf(LockDeadlockException.class).hasMessageContaining("account");
            }
        });
    }

    @Test
    void aMonoAndAFluxSignalTheDeadlockUnderWaitAndSkip() {
        whileBusy(accounts -> {
            StepVerifier.create(accounts.mono()).expectError(LockDeadlockException.class).verify(Duration.ofSeconds(30));
            StepVerifier.create(accounts.monoOrSkip()).expectError(LockDeadlockException.class)
                    .verify(Duration.ofSeconds(30));
            StepVerifier.create(accounts.flux()).expectError(LockDeadlockException.class).verify(Duration.ofSeconds(30));
            StepVerifier.create(accounts.fluxOrSkip()).expectError(LockDeadlockException.class)
                    .verify(Duration.ofSeconds(30));
        });
    }

    interface ThrowingConsumer<T> {
        void accept(T value) throws Exception;
    }

    /** The in-process backend, whose asynchronous waits all end as a deadlock's victim. */
    static final class VictimBackend extends ForwardingLockBackend {

        VictimBackend() {
            super(LocalLockBackend.create());
        }

        @Override
        public String name() {
            return "victim";
        }

        @Override
        public CompletableFuture<Optional<Grant>> acquireAsync(LockRequest request, Duration wait) {
            DeadlockCycle cycle = new DeadlockCycle(List.of(
                    new DeadlockCycle.Member("0123456789abcdef", "other", request.key(), LockMode.EXCLUSIVE,
                            Duration.ofMillis(300), true),
                    new DeadlockCycle.Member("fedcba9876543210", request.key(), "other", LockMode.EXCLUSIVE,
                            Duration.ofMillis(500), false)), name(), Instant.now());
            return CompletableFuture.failedFuture(new LockDeadlockException(request.key(), name(), cycle));
        }
    }

    public static class Accounts {
        private final AtomicInteger runs = new AtomicInteger();

        int runs() {
            return runs.get();
        }

        @DistributedLock(key = "'account'")
        public CompletionStage<String> stage() {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(key = "'account'", onBusy = OnBusy.SKIP, waitFor = "5s")
        public CompletionStage<String> stageOrSkip() {
            return stage();
        }

        @DistributedLock(key = "'account'")
        public Mono<String> mono() {
            return Mono.fromSupplier(() -> "ran " + runs.incrementAndGet());
        }

        @DistributedLock(key = "'account'", onBusy = OnBusy.SKIP, waitFor = "5s")
        public Mono<String> monoOrSkip() {
            return mono();
        }

        @DistributedLock(key = "'account'")
        public Flux<String> flux() {
            return Flux.defer(() -> Flux.just("ran " + runs.incrementAndGet()));
        }

        @DistributedLock(key = "'account'", onBusy = OnBusy.SKIP, waitFor = "5s")
        public Flux<String> fluxOrSkip() {
            return flux();
        }
    }
}
