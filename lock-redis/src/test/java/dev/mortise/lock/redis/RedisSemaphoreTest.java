package dev.mortise.lock.redis;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockSemaphore;
import dev.mortise.lock.PermitLease;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Native semaphores on one redis-server (default mode): what they cost, counted by the server
 * ({@code INFO commandstats}: one script call to acquire n permits, one to release, one to change
 * the count), how they are stored (one readers hash with a {@code #limit} field, nothing left after
 * the last release), and which modes keep the slot fallback (fair mode). Counts are exact, not timed;
 * leases are long, so no renewal runs while a count is taken.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisSemaphoreTest {

    private static RedisServer server;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String name = "sem:" + UUID.randomUUID();

    @BeforeAll
    static void startServer() {
        server = new RedisServer();
        server.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private LockClient client(boolean fair) {
        LockClient client = LockClient.builder(RedisLockBackend.builder().address(server.address()).fair(fair).build())
                .defaultLease(Duration.ofSeconds(30)).build();
        closeables.add(client);
        // connected, and every script this test counts cached on the server (a first EVALSHA costs a reload)
        LockSemaphore warmUp = client.semaphore("warm-up:" + UUID.randomUUID(), 2);
        warmUp.acquire(Duration.ofSeconds(5)).close();
        warmUp.setPermits(2);
        return client;
    }

    private static long scripts() throws Exception {
        return RedisMultiKeyBatchTest.scriptCalls(server.port());
    }

    @Test
    void acquiringNPermitsIsOneScriptCallAndReleasingIsOne() throws Exception {
        LockSemaphore semaphore = client(false).semaphore(name, 5);
        assertThat(semaphore.isNative()).isTrue();
        long before = scripts();
        PermitLease three = semaphore.acquire(3, Duration.ofSeconds(5));
        assertThat(scripts() - before).as("script calls to acquire 3 permits").isEqualTo(1);
        before = scripts();
        PermitLease two = semaphore.acquire(2, Duration.ofSeconds(5));
        assertThat(scripts() - before).as("script calls to acquire 2 more").isEqualTo(1);
        before = scripts();
        semaphore.setPermits(6);
        assertThat(scripts() - before).as("script calls to change the count").isEqualTo(1);
        before = scripts();
        three.close();
        assertThat(scripts() - before).as("script calls to release 3 permits").isEqualTo(1);
        two.close();
    }

    @Test
    void theHoldsAndTheCountLiveInOneHashThatGoesWithTheLastRelease() throws Exception {
        LockSemaphore semaphore = client(false).semaphore(name, 4);
        String readers = RedisKeys.of("mortise", semaphore.permitsKey()).readers();
        PermitLease one = semaphore.acquire(Duration.ofSeconds(5));
        PermitLease two = semaphore.acquire(2, Duration.ofSeconds(5));
        assertThat(server.command("HGET", readers, "#limit")).contains("4");
        assertThat(server.command("HLEN", readers)).isEqualTo(":3");
        one.close();
        two.close();
        assertThat(server.command("EXISTS", readers)).as("nothing left after the last release").isEqualTo(":0");
    }

    @Test
    void fairModeKeepsTheSlotFallback() {
        LockClient fair = LockClient.builder(RedisLockBackend.builder().address(server.address()).fair(true).build())
                .defaultLease(Duration.ofSeconds(30)).build();
        closeables.add(fair);
        LockSemaphore semaphore = fair.semaphore(name, 2);
        assertThat(semaphore.isNative()).isFalse();
        try (PermitLease permit = semaphore.acquire(Duration.ofSeconds(5))) {
            assertThat(permit.slots()).hasSize(1);
        }
    }
}
