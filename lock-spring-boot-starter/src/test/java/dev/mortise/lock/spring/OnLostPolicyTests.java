package dev.mortise.lock.spring;

import dev.mortise.lock.LockLostException;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 15 item 5: what a call is told when its lock is lost while the method runs, per
 * return type. The loss is real: the hold is dropped on the server
 * ({@link LocalLockServer#forget}) and the watchdog's next renewal finds it gone (a 300 ms
 * lease is renewed every 100 ms).
 */
class OnLostPolicyTests {

    private final ApplicationContextRunner runner = LockTestSupport.localRunner()
            .withPropertyValues("mortise.lock.default-lease=300ms")
            .withBean(Work.class);

    @Test
    void interruptStopsASynchronousMethodAndTheCallEndsWithTheLoss() {
        runner.run(context -> {
            Work work = context.getBean(Work.class);
            CountDownLatch entered = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            CompletableFuture<Void> call = CompletableFuture.runAsync(() -> work.interruptible("i", entered, interrupted));
            assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
            server(context).forget("i");
            assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LockLostException.class);
            assertThat(interrupted).as("the method's thread was interrupted at the loss").isTrue();
        });
    }

    @Test
    void notifyLetsTheMethodRunOnAndEndsTheCallWithTheLoss() {
        runner.run(context -> {
            Work work = context.getBean(Work.class);
            CountDownLatch entered = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            CompletableFuture<Void> call = CompletableFuture.runAsync(() -> work.notified("n", entered, interrupted));
            assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
            server(context).forget("n");
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(LockLostException.class);
            assertThat(interrupted).as("NOTIFY never interrupts").isFalse();
        });
    }

    @Test
    void cancelEndsAMonoWithLockLostException() {
        runner.run(context -> StepVerifier.create(context.getBean(Work.class).mono("m"))
                .then(() -> loseWhenHeld(context, "m"))
                .expectError(LockLostException.class)
                .verify(Duration.ofSeconds(5)));
    }

    @Test
    void cancelEndsAFluxWithLockLostException() {
        runner.run(context -> StepVerifier.create(context.getBean(Work.class).flux("f"))
                .then(() -> loseWhenHeld(context, "f"))
                .expectError(LockLostException.class)
                .verify(Duration.ofSeconds(5)));
    }

    @Test
    void cancelCompletesAFutureExceptionallyAndCancelsTheMethodsOwn() {
        runner.run(context -> {
            CompletableFuture<String> own = new CompletableFuture<>();
            CompletableFuture<String> result = context.getBean(Work.class).future("c", own);
            server(context).forget("c");
            assertThatThrownBy(() -> result.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LockLostException.class);
            assertThat(own).isCancelled();
        });
    }

    @Test
    void theGlobalDefaultAppliesToAnnotationsThatGiveNone() {
        runner.withPropertyValues("mortise.lock.on-lost=cancel").run(context ->
                StepVerifier.create(context.getBean(Work.class).monoByDefault("d"))
                        .then(() -> loseWhenHeld(context, "d"))
                        .expectError(LockLostException.class)
                        .verify(Duration.ofSeconds(5)));
    }

    private static LocalLockServer server(ApplicationContext context) {
        return context.getBean(LocalLockBackend.class).server();
    }

    private static void loseWhenHeld(ApplicationContext context, String key) {
        AsyncCancellationTests.await(() -> server(context).isHeld(key));
        server(context).forget(key);
    }

    public static class Work {

        @DistributedLock(key = "#key", onLost = OnLost.INTERRUPT)
        public void interruptible(String key, CountDownLatch entered, AtomicBoolean interrupted) {
            entered.countDown();
            try {
                Thread.sleep(8000);
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        }

        @DistributedLock(key = "#key", onLost = OnLost.NOTIFY)
        public void notified(String key, CountDownLatch entered, AtomicBoolean interrupted) {
            entered.countDown();
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        }

        @DistributedLock(key = "#key", onLost = OnLost.CANCEL)
        public Mono<String> mono(String key) {
            return Mono.never();
        }

        @DistributedLock(key = "#key", onLost = OnLost.CANCEL)
        public Flux<String> flux(String key) {
            return Flux.never();
        }

        @DistributedLock(key = "#key", onLost = OnLost.CANCEL)
        public CompletableFuture<String> future(String key, CompletableFuture<String> own) {
            return own;
        }

        @DistributedLock(key = "#key")
        public Mono<String> monoByDefault(String key) {
            return Mono.never();
        }
    }
}
