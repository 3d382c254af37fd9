package dev.mortise.lock.redis;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockClient#acquireAll} on a single redis-server: the script calls it costs, counted by the server
 * ({@code INFO commandstats}), and all-or-nothing when a part is busy. Counts are exact, not timed; every
 * lease is explicit or long, so no renewal runs while a count is taken.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisMultiKeyBatchTest {

    private static final Pattern CALLS = Pattern.compile("cmdstat_(?:evalsha|eval):calls=(\\d+)");
    private static RedisServer server;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String prefix = "batch:" + UUID.randomUUID() + ":";

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

    /** Script calls a redis-server has served since it started. */
    static long scriptCalls(int port) throws Exception {
        Matcher m = CALLS.matcher(RedisCli.run(port, "INFO", "commandstats"));
        long calls = 0;
        while (m.find()) {
            calls += Long.parseLong(m.group(1));
        }
        return calls;
    }

    private LockClient client(boolean fair) {
        LockClient client = LockClient.builder(RedisLockBackend.builder().address(server.address()).fair(fair).build())
                .defaultLease(Duration.ofSeconds(30)).build();
        closeables.add(client);
        // connected, and every script this test counts cached on the server (a first EVALSHA costs a reload)
        client.tryAcquire(prefix + "warm-up").orElseThrow().close();
        client.tryAcquireAll(List.of(prefix + "warm-up", prefix + "warm-up:2")).orElseThrow().close();
        client.acquire(LockSpec.of(prefix + "warm-up").shared()).close();
        return client;
    }

    private List<String> keys(int n) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(prefix + i);
        }
        return keys;
    }

    private static boolean held(String key) throws Exception {
        return server.command("EXISTS", RedisKeys.of("mortise", key).lock()).equals(":1");
    }

    private static String holder(String key) throws Exception {
        return server.command("GET", RedisKeys.of("mortise", key).lock());
    }

    @Test
    void anUncontendedAcquireAllOfManyKeysIsOneScriptCall() throws Exception {
        LockClient locks = client(false);
        List<String> keys = keys(8);
        long before = scriptCalls(server.port());
        try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys).lease(Duration.ofSeconds(30))
                .waitFor(Duration.ofSeconds(5)))) {
            assertThat(scriptCalls(server.port()) - before).as("script calls for 8 keys").isEqualTo(1);
            for (String key : keys) {
                assertThat(held(key)).as(key).isTrue();
                assertThat(all.fencingToken(key)).isPositive();
            }
        }
        for (String key : keys) {
            assertThat(held(key)).as(key).isFalse();
        }
    }

    @Test
    void sharedAndExclusivePartsGoInTheSameScriptCall() throws Exception {
        LockClient locks = client(false);
        LockClient other = client(false);
        String x = prefix + "x";
        String r = prefix + "r";
        long before = scriptCalls(server.port());
        try (MultiLease all = locks.acquireAll(MultiLockSpec.of(List.of(x)).shared(r).lease(Duration.ofSeconds(30)))) {
            assertThat(scriptCalls(server.port()) - before).isEqualTo(1);
            try (LockLease reader = other.acquire(LockSpec.of(r).shared().lease(Duration.ofSeconds(30)))) {
                assertThat(reader.fencingToken()).isGreaterThan(all.fencingToken(r));
            }
            assertThat(other.tryAcquire(x)).isEmpty();
            assertThat(other.tryAcquire(r)).as("a writer waits for the reader").isEmpty();
        }
        try (LockLease writer = other.acquire(LockSpec.of(r).lease(Duration.ofSeconds(30)))) {
            assertThat(writer.isValid()).isTrue();
        }
    }

    @Test
    void aBusyPartLeavesNothingOnTheServerAndTheWaitThenGetsEveryKey() throws Exception {
        LockClient locks = client(false);
        LockClient other = client(false);
        List<String> keys = keys(4);
        String busy = keys.get(2);
        LockLease holder = other.acquire(LockSpec.of(busy).lease(Duration.ofSeconds(30)));
        String holderOwner = holder(busy);

        long before = scriptCalls(server.port());
        assertThat(locks.tryAcquireAll(keys)).isEmpty();
        assertThat(scriptCalls(server.port()) - before)
                .as("the refused batch; then the ordered path: attempts up to the busy key, releases of the two before it")
                .isEqualTo(1 + 3 + 2);
        for (String key : keys) {
            if (!key.equals(busy)) {
                assertThat(held(key)).as("nothing of the batch left: " + key).isFalse();
            }
        }
        assertThat(holder(busy)).as("the busy holder is untouched").isEqualTo(holderOwner);
        assertThat(holder.isValid()).isTrue();

        CompletableFuture<MultiLease> waiting = CompletableFuture.supplyAsync(
                () -> locks.acquireAll(keys, Duration.ofSeconds(60)));
        Thread.sleep(200);
        assertThat(waiting).isNotDone();
        long token = holder.fencingToken();
        holder.close();
        try (MultiLease all = waiting.get(60, TimeUnit.SECONDS)) {
            assertThat(all.keys()).containsExactlyElementsOf(keys);
            assertThat(all.fencingToken(busy)).isGreaterThan(token);
            for (String key : keys) {
                assertThat(held(key)).as(key).isTrue();
            }
        }
    }

    @Test
    void aPartAlreadyHeldByTheCallersOwnerIsNestedThroughTheOrderedPath() throws Exception {
        LockClient locks = client(false);
        List<String> keys = keys(3);
        try (LockLease outer = locks.acquire(LockSpec.of(keys.get(1)).lease(Duration.ofSeconds(30)))) {
            long before = scriptCalls(server.port());
            try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys).lease(Duration.ofSeconds(30)))) {
                assertThat(scriptCalls(server.port()) - before).as("the two other keys, one by one").isEqualTo(2);
                assertThat(all.fencingToken(keys.get(1))).isEqualTo(outer.fencingToken());
            }
            assertThat(held(keys.get(1))).as("the outer lease still holds its key").isTrue();
            assertThat(outer.isValid()).isTrue();
        }
        assertThat(held(keys.get(1))).isFalse();
    }

    @Test
    void fairModeTakesTheKeysOneByOne() throws Exception {
        LockClient locks = client(true);
        List<String> keys = keys(3);
        long before = scriptCalls(server.port());
        try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys).lease(Duration.ofSeconds(30)))) {
            assertThat(scriptCalls(server.port()) - before).isEqualTo(3);
            assertThat(all.isValid()).isTrue();
        }
    }
}
