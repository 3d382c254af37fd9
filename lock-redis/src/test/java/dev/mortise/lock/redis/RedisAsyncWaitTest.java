package dev.mortise.lock.redis;

import dev.mortise.lock.LockMode;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code acquireAsync} waits without a thread per waiter (issue 32): N asynchronous waits at the SPI, each
 * on its own key held by another owner, add only a few threads to the JVM while they all wait (a
 * pool thread per waiting request would add N), every driver and mode; exclusive waiters (which leave
 * writer markers, or queue entries in fair mode) and shared ones. Once the holders release, every
 * waiter is granted, and after the waiters release nothing is left on the server but fence counters.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedisAsyncWaitTest {

    /** Under Redisson's default of 250 subscriptions per client (50 connections of 5), one per waiting key. */
    private static final int WAITERS = 200;
    private static final Duration LEASE = Duration.ofSeconds(60);

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

    @ParameterizedTest(name = "{0}, fair {1}")
    @CsvSource({"REDISSON, false", "LETTUCE, false", "REDISSON, true", "LETTUCE, true"})
    void waitersHoldNoThreadEachAndAllAreGrantedOnRelease(RedisDriver driver, boolean fair) throws Exception {
        String prefix = "aw" + UUID.randomUUID().toString().replace("-", "");
        RedisLockBackendBuilder builder = RedisLockBackend.builder().address(server.address()).driver(driver)
                .fair(fair).keyPrefix(prefix);
        if (driver == RedisDriver.REDISSON) {
            // Redisson starts up to 32 event-loop threads as its subscription connections open: the client's
            // own bounded pool, not a thread per waiter; kept small so that the count measures Mortise's.
            builder.configure(config -> config.setNettyThreads(4));
        }
        try (LockBackend backend = builder.build()) {
            List<Grant> holds = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                holds.add(backend.tryAcquire(request(i, "holder", LockMode.EXCLUSIVE)).grant().orElseThrow());
            }
            int before = liveThreads();
            int peak = before;
            List<CompletableFuture<Optional<Grant>>> waits = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                LockMode mode = i % 3 == 0 ? LockMode.SHARED : LockMode.EXCLUSIVE;
                waits.add(backend.acquireAsync(request(i, "waiter", mode), Duration.ofSeconds(120)));
                peak = Math.max(peak, liveThreads());
            }
            // Each waiter subscribes to its key's release channel once refused: all of them are waiting then.
            long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (subscribedChannels(prefix) < WAITERS) {
                assertThat(System.nanoTime() - limit).as("all waiters subscribed").isNegative();
                for (CompletableFuture<Optional<Grant>> wait : waits) {
                    assertThat(wait).as("a waiter, while its key is held").isNotDone();
                }
                peak = Math.max(peak, liveThreads());
                Thread.sleep(10);
            }
            peak = Math.max(peak, liveThreads());
            assertThat(waits).noneMatch(CompletableFuture::isDone);
            assertThat(peak - before).as("threads added while " + WAITERS + " async waits wait").isLessThan(30);

            for (Grant hold : holds) {
                assertThat(backend.release(hold)).isTrue();
            }
            for (CompletableFuture<Optional<Grant>> wait : waits) {
                Grant grant = wait.get(120, TimeUnit.SECONDS).orElseThrow();
                assertThat(backend.release(grant)).isTrue();
            }
            while (residue(prefix) > 0) {
                assertThat(System.nanoTime() - limit).as("nothing left on the server").isNegative();
                Thread.sleep(10);
            }
        }
    }

    private static int liveThreads() {
        return Thread.getAllStackTraces().size();
    }

    private static LockRequest request(int i, String who, LockMode mode) {
        return new LockRequest("key-" + i, who + "-" + i + "-" + UUID.randomUUID(), LEASE, true, mode);
    }

    /** Release channels under {@code prefix} the server has subscribers for. */
    private static int subscribedChannels(String prefix) throws Exception {
        return count(server.command("PUBSUB", "CHANNELS", prefix + ":released:*"));
    }

    /** Keys under {@code prefix} but the fence counters, which never expire. */
    private static int residue(String prefix) throws Exception {
        return count(server.command("EVAL", "local n = 0 for _, k in ipairs(redis.call('KEYS', ARGV[1])) do "
                + "if not string.find(k, ':fence:', 1, true) then n = n + 1 end end return n", "0", prefix + ":*"));
    }

    private static int count(String reply) {
        return Integer.parseInt(reply.substring(1));
    }
}
