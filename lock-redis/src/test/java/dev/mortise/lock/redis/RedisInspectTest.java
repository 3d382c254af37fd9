package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockInspection;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@code inspect} reads on Redis beyond the shared contract: the exact tokens, the waiter
 * count of the fair queue (and none in the default mode), nothing written, and Redlock's majority
 * view with a node down.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisInspectTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final List<RedisServer> servers = new ArrayList<>();
    private final List<LockClient> clients = new ArrayList<>();
    private final String key = "inspect:" + UUID.randomUUID();

    @AfterEach
    void stop() {
        clients.forEach(LockClient::close);
        servers.forEach(RedisServer::close);
    }

    private RedisServer server() {
        RedisServer server = new RedisServer();
        servers.add(server);
        server.start();
        return server;
    }

    /** The holder id of {@code owner} as {@link LockInspection.Holder#holderId()} states it: 16 hex digits of its SHA-256. */
    private static String holderIdOf(String owner) throws NoSuchAlgorithmException {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(owner.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest, 0, 8);
    }

    private LockClient client(LockBackend backend) {
        LockClient client = LockClient.builder(backend).defaultLease(Duration.ofSeconds(5)).build();
        clients.add(client);
        return client;
    }

    @Test
    void defaultModeReportsExactTokensNoWaiterCountAndWritesNothing() throws Exception {
        RedisServer server = server();
        LockClient a = client(RedisLockBackend.builder().address(server.address()).build());
        LockClient b = client(RedisLockBackend.builder().address(server.address()).build());
        RedisKeys keys = RedisKeys.of("mortise", key);
        assertThat(a.inspect(key).held()).isFalse();
        assertThat(server.command("EXISTS", keys.lock(), keys.fence(), keys.readers(), keys.queue(), keys.waiters(),
                keys.writers())).as("inspecting a free key creates no key").isEqualTo(":0");
        try (LockLease lease = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(20)))) {
            String dumpBefore = server.command("PTTL", keys.lock());
            LockInspection seen = b.inspect(key);
            assertThat(seen.mode()).isEqualTo(LockMode.EXCLUSIVE);
            assertThat(seen.waiters()).as("no honest count of waiters in the default mode").isEmpty();
            assertThat(seen.holders()).singleElement().satisfies(h -> {
                assertThat(h.fencingToken()).hasValue(lease.fencingToken());
                assertThat(h.holderId()).isEqualTo(lease.holderId());
            });
            assertThat(Long.parseLong(server.command("PTTL", keys.lock()).substring(1)))
                    .as("the lease was not renewed by inspecting")
                    .isLessThanOrEqualTo(Long.parseLong(dumpBefore.substring(1)));
        }
        try (LockLease one = a.acquire(LockSpec.of(key).shared().waitFor(WAIT));
             LockLease two = b.acquire(LockSpec.of(key).shared().waitFor(WAIT))) {
            LockInspection seen = a.inspect(key);
            assertThat(seen.mode()).isEqualTo(LockMode.SHARED);
            assertThat(seen.holders()).hasSize(2).allSatisfy(h -> {
                LockLease lease = h.holderId().equals(one.holderId()) ? one : two;
                assertThat(h.fencingToken()).hasValue(lease.fencingToken());
                assertThat(h.heldByThisClient()).isEqualTo(lease == one);
            });
        }
    }

    @Test
    void fairModeCountsTheQueue() throws Exception {
        RedisServer server = server();
        LockClient a = client(RedisLockBackend.builder().address(server.address()).fair(true).build());
        LockClient b = client(RedisLockBackend.builder().address(server.address()).fair(true).build());
        LockClient c = client(RedisLockBackend.builder().address(server.address()).fair(true).build());
        assertThat(a.inspect(key).waiters()).hasValue(0);
        List<CompletableFuture<Void>> waiting = new ArrayList<>();
        try (LockLease held = a.acquire(key, WAIT)) {
            for (LockClient waiter : List.of(b, c)) {
                waiting.add(CompletableFuture.runAsync(() -> waiter.acquire(key, Duration.ofSeconds(60)).close()));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (a.inspect(key).waiters().orElseThrow() < 2 && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
            LockInspection seen = a.inspect(key);
            assertThat(seen.waiters()).hasValue(2);
            assertThat(seen.holders()).singleElement().satisfies(h -> assertThat(h.holderId()).isEqualTo(held.holderId()));
        }
        CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(a.inspect(key).waiters()).hasValue(0);
        assertThat(a.inspect(key).held()).isFalse();
    }

    @Test
    void redlockReportsWhatAMajorityAgreesOnAndRefusesWithoutOne() throws Exception {
        for (int i = 0; i < 3; i++) {
            server();
        }
        String[] nodes = servers.stream().map(RedisServer::address).toArray(String[]::new);
        LockClient a = client(RedlockBackend.builder().nodes(nodes).nodeTimeout(Duration.ofMillis(500)).build());
        LockClient b = client(RedlockBackend.builder().nodes(nodes).nodeTimeout(Duration.ofMillis(500)).build());
        LockLease lease = a.acquire(LockSpec.of(key).lease(Duration.ofSeconds(20)));
        servers.get(0).kill();
        LockInspection seen = b.inspect(key);
        assertThat(seen.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(seen.waiters()).isEmpty();
        assertThat(seen.holders()).singleElement().satisfies(h -> {
            assertThat(h.holderId()).as("the request's owner, without Redlock's attempt suffix")
                    .isEqualTo(lease.holderId());
            assertThat(h.fencingToken()).hasValue(lease.fencingToken());
            assertThat(h.remaining()).hasValueSatisfying(r -> assertThat(r).isPositive()
                    .isLessThanOrEqualTo(Duration.ofSeconds(20)));
            assertThat(h.heldByThisClient()).isFalse();
        });
        assertThat(a.inspect(key).heldByThisClient()).isTrue();
        servers.get(1).kill();
        assertThatThrownBy(() -> b.inspect(key)).isInstanceOf(LockBackendException.class)
                .hasMessageContaining(key).hasMessageContaining("'redlock'").hasMessageContaining("only 1 of 3");
        try {
            lease.close();
        } catch (LockBackendException expected) {
            // two of three nodes are down: the release cannot reach a majority, the hold expires
        }
    }

    @Test
    void redlockIgnoresAHoldOnAMinorityOfNodes() throws Exception {
        for (int i = 0; i < 3; i++) {
            server();
        }
        String[] nodes = servers.stream().map(RedisServer::address).toArray(String[]::new);
        LockClient a = client(RedlockBackend.builder().nodes(nodes).nodeTimeout(Duration.ofMillis(500)).build());
        RedisKeys keys = RedisKeys.of("mortise", key);
        servers.get(0).command("SET", keys.lock(), "someone/1", "PX", "20000");
        assertThat(a.inspect(key).held()).as("one node of three is no majority").isFalse();
        servers.get(1).command("SET", keys.lock(), "someone/1", "PX", "20000");
        LockInspection seen = a.inspect(key);
        String someone = holderIdOf("someone");
        assertThat(seen.holders()).singleElement().satisfies(h -> {
            assertThat(h.holderId()).isEqualTo(someone);
            assertThat(h.fencingToken()).isEmpty();
            assertThat(h.remaining()).hasValueSatisfying(r -> assertThat(r).isPositive()
                    .isLessThanOrEqualTo(Duration.ofSeconds(20)));
        });
    }
}
