package dev.mortise.lock.redis;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link RedisLockBackendTest} checks beyond the contract (pub/sub wake-ups, shared
 * subscriptions, {@code NOSCRIPT} reload, ACL), through the Lettuce driver; and what only the
 * Lettuce driver has: a supplied client left open, the same requests as Redisson per lock cycle,
 * and the builder's refusals.
 */
class RedisLettuceLockBackendTest extends RedisLockBackendTest {

    @Override
    RedisLockBackendBuilder builder() {
        return RedisLockBackend.builder().driver(RedisDriver.LETTUCE);
    }

    /** Commands the server ran, by name, from {@code INFO commandstats}, without INFO itself. */
    private static Map<String, Long> commandCalls() throws Exception {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : RedisCli.run(server.port(), "INFO", "commandstats").split("\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
                int at = line.indexOf("calls=") + "calls=".length();
                calls.put(line.substring("cmdstat_".length(), line.indexOf(':')),
                        Long.parseLong(line.substring(at, line.indexOf(',', at))));
            }
        }
        return calls;
    }

    private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((command, calls) -> {
            long more = calls - before.getOrDefault(command, 0L);
            if (more != 0) {
                delta.put(command, more);
            }
        });
        return delta;
    }

    /** The commands of {@code cycles} uncontended acquire + release cycles through the SPI, after a warm-up cycle. */
    private static Map<String, Long> cycle(LockBackend backend, int cycles) throws Exception {
        String key = "count:" + UUID.randomUUID();
        LockRequest request = new LockRequest(key, "owner", Duration.ofSeconds(30), false);
        assertThat(backend.release(backend.tryAcquire(request).grant().orElseThrow())).isTrue(); // connects, loads
        Map<String, Long> before = commandCalls();
        for (int i = 0; i < cycles; i++) {
            Grant grant = backend.tryAcquire(request).grant().orElseThrow();
            assertThat(backend.release(grant)).isTrue();
        }
        return delta(before, commandCalls());
    }

    @Test
    void aLockCycleSendsTheSameTwoEvalshasAsRedisson() throws Exception {
        try (LockBackend lettuce = builder().address(server.address()).build();
             LockBackend redisson = RedisLockBackend.builder().address(server.address()).build()) {
            Map<String, Long> byLettuce = cycle(lettuce, 10);
            Map<String, Long> byRedisson = cycle(redisson, 10);
            // commandstats also counts what the scripts run inside (GET, SET, PUBLISH...): equal maps
            // mean the same scripts doing the same work, and nothing else sent by either client.
            assertThat(byLettuce).as("the same as Redisson, script internals included").isEqualTo(byRedisson);
            assertThat(byLettuce.get("evalsha")).as("an acquire and a release script per cycle").isEqualTo(20L);
            assertThat(byLettuce).as("no EVAL fallback, no ping, no other command of the client")
                    .doesNotContainKeys("eval", "ping", "script", "wait", "hello");
        }
    }

    @Test
    void suppliedLettuceClientIsUsedAndLeftOpen() throws Exception {
        RedisClient lettuce = RedisClient.create(server.address());
        try {
            String key = "supplied:" + UUID.randomUUID();
            RedisKeys keys = RedisKeys.of("mortise", key);
            LockClient locks = LockClient.builder(RedisLockBackend.builder().lettuce(lettuce).build()).build();
            try (LockLease lease = locks.acquire(key, Duration.ofSeconds(5))) {
                assertThat(server.command("GET", keys.fence())).isEqualTo(Long.toString(lease.fencingToken()));
            }
            locks.close();
            try (StatefulRedisConnection<String, String> connection = lettuce.connect()) {
                assertThat(connection.sync().exists(keys.fence())).as("the application's client stays open")
                        .isEqualTo(1);
            }
        } finally {
            LettuceShutdown.quietly(lettuce);
        }
    }

    @Test
    void redissonOnlySettingsAreRefusedWithLettuceButClusterReplicaWaitsAreBuilt() {
        assertThatThrownBy(() -> builder().config(new org.redisson.config.Config()).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Redisson");
        assertThatThrownBy(() -> builder().address(server.address()).configure(c -> { }).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Redisson");
        RedisClient client = RedisClient.create(server.address());
        try {
            assertThatThrownBy(() -> RedisLockBackend.builder().lettuce(client).credentials(null, "pw").build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("RedisURI");
            assertThatThrownBy(() -> RedisLockBackend.builder().lettuce(client).address(server.address()).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("exactly one");
        } finally {
            LettuceShutdown.quietly(client);
        }
        RedisClusterClient cluster = RedisClusterClient.create("redis://127.0.0.1:1");
        try {
            // Refused before issue 19; now each master's writes and WAIT share that master's connection
            // (RedisLettuceClusterReplicationTest). build() connects nothing, so the bad port is fine.
            RedisLockBackend.builder().lettuce(cluster).waitForReplicas(1, Duration.ofSeconds(1)).build().close();
        } finally {
            LettuceShutdown.quietly(cluster);
        }
    }

    /**
     * A SUBSCRIBE the server refuses (an ACL user without channel rights: NOPERM) fails that wait;
     * once the rights are granted, the next wait subscribes afresh and is woken by the release. A
     * refused subscription that stayed registered would fail every later wait for the key.
     */
    @Test
    void aRefusedSubscriptionIsForgottenAndTheNextWaitSubscribesAfresh() throws Exception {
        try (dev.mortise.lock.tck.server.RedisServer own = new dev.mortise.lock.tck.server.RedisServer()) {
            own.start();
            assertThat(own.command("ACL", "SETUSER", "nosub", "on", ">pw", "~mortise:*", "resetchannels", "+@all"))
                    .isEqualTo("+OK");
            String key = "refused:" + UUID.randomUUID();
            try (LockBackend holder = builder().address(own.address()).build();
                 LockBackend waiter = builder().address(own.address()).credentials("nosub", "pw")
                         .operationTimeout(Duration.ofSeconds(2)).build()) {
                Grant held = holder.tryAcquire(new LockRequest(key, "holder", Duration.ofSeconds(60), false)).grant()
                        .orElseThrow();
                LockRequest request = new LockRequest(key, "waiter", Duration.ofSeconds(60), false);
                assertThatThrownBy(() -> waiter.acquire(request, Duration.ofSeconds(5)))
                        .isInstanceOf(dev.mortise.lock.LockBackendException.class).hasMessageContaining(key);
                assertThat(own.command("ACL", "SETUSER", "nosub", "allchannels")).isEqualTo("+OK");
                java.util.concurrent.CompletableFuture<java.util.Optional<Grant>> next =
                        java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                            try {
                                return waiter.acquire(request, Duration.ofSeconds(30));
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        });
                await(Duration.ofSeconds(10), () -> {
                    if (next.isDone()) {
                        return true; // ended early (failed): the get below reports how
                    }
                    try {
                        String[] lines = RedisCli.run(own.port(), "PUBSUB", "NUMSUB",
                                RedisKeys.of("mortise", key).channel()).split("\n");
                        return Integer.parseInt(lines[lines.length - 1].trim()) == 1;
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }, "the second wait to subscribe");
                assertThat(holder.release(held)).isTrue();
                Grant granted = next.get(30, java.util.concurrent.TimeUnit.SECONDS).orElseThrow();
                assertThat(waiter.release(granted)).isTrue();
            }
        }
    }
}
