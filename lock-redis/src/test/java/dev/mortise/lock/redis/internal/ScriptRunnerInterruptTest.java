package dev.mortise.lock.redis.internal;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockInterruptedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A caller is told it was interrupted only when it was: an {@link InterruptedException} that another
 * thread's interrupt put into a shared future is a failure, and neither reads as this caller's
 * interrupt nor sets its flag; an interrupted caller leaves the wait for a connection on its own,
 * and the connect goes on for the others.
 */
class ScriptRunnerInterruptTest {

    @AfterEach
    void clearFlag() {
        Thread.interrupted();
    }

    private static ScriptRunner runner(RedisTransport transport) {
        return new ScriptRunner(transport, Duration.ofSeconds(1), Duration.ofSeconds(2), "redis", "127.0.0.1:1");
    }

    @Test
    void anotherThreadsInterruptedExceptionIsAFailureAndLeavesThisCallersFlagAlone() {
        CompletableFuture<Object> shared = CompletableFuture.failedFuture(new InterruptedException());
        assertThatThrownBy(() -> runner(null).await(shared, Duration.ofSeconds(1), "order:1", "acquire"))
                .isInstanceOf(LockBackendException.class).isNotInstanceOf(LockInterruptedException.class)
                .hasMessageContaining("order:1");
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void anInterruptedCallerIsToldItWasInterruptedAndKeepsItsFlag() {
        CompletableFuture<Object> failed = CompletableFuture.failedFuture(new InterruptedException());
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> runner(null).await(failed, Duration.ofSeconds(1), "order:1", "acquire"))
                .isInstanceOf(LockInterruptedException.class).hasMessageContaining("order:1");
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void anInterruptEndsOnlyTheCallersWaitForTheConnectionNotTheConnect() {
        CompletableFuture<Object> opening = new CompletableFuture<>();
        RedisTransport transport = (RedisTransport) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {RedisTransport.class}, (proxy, method, args) -> {
                    if (method.getName().equals("connect")) {
                        return opening;
                    }
                    throw new AssertionError("nothing is sent before the connection opens: " + method);
                });
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> runner(transport).ensureReady("order:1"))
                .isInstanceOf(LockInterruptedException.class).hasMessageContaining("order:1")
                .hasMessageContaining("nothing was sent");
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        assertThat(opening).as("the connect other callers wait for").isNotDone();
    }
}
