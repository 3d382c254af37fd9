package dev.mortise.lock.redis;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockInterruptedException;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.tck.server.RedisServer;
import dev.mortise.lock.tck.server.StallingProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An interrupt reaches the caller it was sent to, and no other. The first calls on a fresh client
 * share its first connect (Redisson's lazy initialization: one caller connects, the others wait
 * for it; Lettuce: one pending connection): one of those callers being interrupted while the
 * connection opens must not fail, or interrupt, another caller that nobody interrupted. A
 * {@link StallingProxy} holds each new connection's first bytes, so the connect stays open while
 * both callers wait in it. (The operation timeout is long too: Redisson sends a PING to set up each
 * connection and gives it the operation timeout, so a stalled first PING would fail the connect.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisFirstConnectInterruptTest {

    private static final long CONNECT_STALL_MS = 4000;

    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = new RedisServer();
        server.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    /** One blocking caller's acquire on its own thread: its lease or failure, and its interrupt flag after. */
    private static final class Caller extends Thread {
        private final LockClient client;
        private final String key = "first-connect:" + UUID.randomUUID();
        volatile LockLease lease;
        volatile Throwable failure;
        volatile boolean interruptedAfter;

        Caller(LockClient client, String name) {
            super(name);
            this.client = client;
        }

        @Override
        public void run() {
            try {
                lease = client.acquire(key, Duration.ofSeconds(60));
            } catch (Throwable e) {
                failure = e;
            }
            interruptedAfter = Thread.currentThread().isInterrupted();
        }

        /** Starts the caller and returns once it waits (in the first connect: nothing else makes it wait). */
        void startAndAwaitParked() throws InterruptedException {
            start();
            long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (getState() != State.WAITING && getState() != State.TIMED_WAITING) {
                assertThat(isAlive()).as(getName() + " ended before waiting: " + failure).isTrue();
                assertThat(System.nanoTime() - limit).as(getName() + " never waited").isNegative();
                Thread.sleep(5);
            }
        }
    }

    private static String trace(Throwable failure) {
        java.io.StringWriter text = new java.io.StringWriter();
        if (failure != null) {
            failure.printStackTrace(new java.io.PrintWriter(text));
        }
        return text.toString();
    }

    /** A client that has not connected yet, through {@code proxy}; both timeouts well above the stall. */
    private static LockClient freshClient(StallingProxy proxy, RedisDriver driver) {
        return LockClient.builder(RedisLockBackend.builder().address(proxy.redisAddress()).driver(driver)
                .connectTimeout(Duration.ofSeconds(60)).operationTimeout(Duration.ofSeconds(30)).build()).build();
    }

    @ParameterizedTest
    @EnumSource(RedisDriver.class)
    void anInterruptDuringTheFirstConnectFailsOnlyTheCallerItWasSentTo(RedisDriver driver) throws Exception {
        try (StallingProxy proxy = new StallingProxy(server.port())) {
            proxy.stallConnectionStarts(CONNECT_STALL_MS);
            try (LockClient client = freshClient(proxy, driver)) {
                Caller interrupted = new Caller(client, "interrupted-caller");
                Caller bystander = new Caller(client, "bystander-caller");
                interrupted.startAndAwaitParked();
                bystander.startAndAwaitParked();
                interrupted.interrupt();
                bystander.join();
                interrupted.join();

                assertThat(bystander.failure).as(() -> "the caller nobody interrupted failed: " + trace(bystander.failure))
                        .isNull();
                assertThat(bystander.lease).isNotNull();
                assertThat(bystander.interruptedAfter).as("the bystander's interrupt flag").isFalse();
                assertThat(bystander.lease.isValid()).isTrue();
                bystander.lease.close();
                if (interrupted.failure != null) {
                    assertThat(interrupted.failure).isInstanceOf(LockInterruptedException.class);
                    assertThat(interrupted.interruptedAfter).as("the interrupted caller keeps its flag").isTrue();
                } else {
                    interrupted.lease.close();
                }
            }
        }
    }

    /**
     * The same through {@code acquireAsync}: the asynchronous wait sleeps on the first connect (no
     * thread waits in it), and cancelling one waiter while both wait for the connection (it stays
     * stalled for seconds, and neither can be answered before it opens) ends that waiter's wait only,
     * never the connect. The waiter nobody cancelled gets its lease.
     */
    @ParameterizedTest
    @EnumSource(RedisDriver.class)
    void cancellingOneAsyncAcquireDuringTheFirstConnectFailsNoOtherWaiter(RedisDriver driver) throws Exception {
        try (StallingProxy proxy = new StallingProxy(server.port())) {
            proxy.stallConnectionStarts(CONNECT_STALL_MS);
            try (LockClient client = freshClient(proxy, driver)) {
                CompletableFuture<LockLease> cancelled = client.acquireAsync(
                        LockSpec.of("first-connect:" + UUID.randomUUID()).waitFor(Duration.ofSeconds(60)));
                CompletableFuture<LockLease> bystander = client.acquireAsync(
                        LockSpec.of("first-connect:" + UUID.randomUUID()).waitFor(Duration.ofSeconds(60)));
                assertThat(bystander).as("the bystander, before the cancel").isNotDone();
                assertThat(cancelled.cancel(true)).isTrue();

                LockLease lease;
                try {
                    lease = bystander.get(120, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    throw new AssertionError("the waiter nobody cancelled failed: " + trace(e.getCause()), e);
                }
                assertThat(lease.isValid()).isTrue();
                lease.close();
            }
        }
    }
}
