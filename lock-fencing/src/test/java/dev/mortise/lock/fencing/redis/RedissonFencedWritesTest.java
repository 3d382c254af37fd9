package dev.mortise.lock.fencing.redis;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.fencing.StaleFencingTokenException;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Fenced SET and HSET on a real redis-server, through Redisson, with real leases from two lock clients. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedissonFencedWritesTest {

    private RedisServer server;
    private RedisServer clusterNode;
    private RedissonClient redisson;
    private RedissonFencedWrites writes;
    private final AtomicInteger rejectedCount = new AtomicInteger();
    private LockClient first;
    private LockClient second;

    @BeforeAll
    void setUp() {
        server = new RedisServer();
        server.start();
        Config config = new Config();
        config.useSingleServer().setAddress(server.address());
        redisson = Redisson.create(config);
        writes = RedissonFencedWrites.of(redisson, stale -> rejectedCount.incrementAndGet());
        LocalLockServer locks = new LocalLockServer("redis-fence-test");
        first = LockClient.builder(new LocalLockBackend(locks)).build();
        second = LockClient.builder(new LocalLockBackend(locks)).build();
    }

    @AfterAll
    void tearDown() {
        first.close();
        second.close();
        redisson.shutdown();
        server.close();
        if (clusterNode != null) {
            clusterNode.close();
        }
    }

    /** (a) for Redis: a holder paused past its lease writes after the newer holder: refused, nothing written. */
    @Test
    void aHolderPausedPastItsLeaseIsRefusedAndTheNewerValueStands() throws Exception {
        String key = "report:" + System.nanoTime();
        LockLease stale = first.acquire(LockSpec.of(key).lease(Duration.ofMillis(300)).waitFor(Duration.ofSeconds(2)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (stale.isValid() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Thread.sleep(100);
        long newer;
        try (LockLease lease = second.acquire(key, Duration.ofSeconds(2))) {
            newer = lease.fencingToken();
            writes.set(key, lease, "newer");
            writes.hset(key + ":h", lease, "owner", "newer");
        }
        int before = rejectedCount.get();
        assertThatThrownBy(() -> writes.set(key, stale, "stale"))
                .isInstanceOfSatisfying(StaleFencingTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo(key);
                    assertThat(e.backend()).isEqualTo("redis-fence");
                    assertThat(e.staleToken()).isEqualTo(stale.fencingToken());
                    assertThat(e.newerToken()).isEqualTo(newer);
                    assertThat(e.getMessage()).contains(key, "{" + key + "}:fence", "nothing was written",
                            Long.toString(newer), Long.toString(stale.fencingToken()));
                });
        assertThatThrownBy(() -> writes.hset(key + ":h", stale, "owner", "stale"))
                .isInstanceOf(StaleFencingTokenException.class);
        assertThat(rejectedCount.get() - before).isEqualTo(2);
        assertThatThrownBy(stale::close).isInstanceOf(LockLostException.class);
        assertThat(redisson.<String>getBucket(key, StringCodec.INSTANCE).get()).isEqualTo("newer");
        assertThat(redisson.<String, String>getMap(key + ":h", StringCodec.INSTANCE).get("owner")).isEqualTo("newer");
        assertThat(writes.fence(key)).isEqualTo(newer);
    }

    /** (c) Equal token writes again; lower refused; TTL applies to the value, never to the fence. */
    @Test
    void equalTokenWritesAgainAndTheFenceOutlivesTheValue() throws Exception {
        String key = "{acct:" + System.nanoTime() + "}:balance";
        writes.set(key, 5, "a", Duration.ZERO);
        writes.set(key, 5, "b", Duration.ofMillis(200));
        assertThat(redisson.<String>getBucket(key, StringCodec.INSTANCE).get()).isEqualTo("b");
        assertThatThrownBy(() -> writes.set(key, 4, "c", Duration.ZERO)).isInstanceOf(StaleFencingTokenException.class);
        Thread.sleep(400);
        assertThat(redisson.<String>getBucket(key, StringCodec.INSTANCE).get()).as("value expired").isNull();
        assertThat(writes.fence(key)).as("fence kept").isEqualTo(5);
        assertThatThrownBy(() -> writes.set(key, 4, "c", Duration.ZERO)).isInstanceOf(StaleFencingTokenException.class);
        writes.hset(key + ":h", 6, Map.of("a", "1", "b", "2"));
        writes.hset(key + ":h", 6, Map.of("a", "3"));
        assertThat(redisson.<String, String>getMap(key + ":h", StringCodec.INSTANCE).readAllMap())
                .isEqualTo(Map.of("a", "3", "b", "2"));
    }

    /** Tokens compare exactly as decimal strings: above 2^53 Lua doubles would call these equal. */
    @Test
    void tokensAbove2To53CompareExactly() {
        String key = "big:" + System.nanoTime();
        long big = (1L << 53) + 1;
        writes.set(key, big, "x", Duration.ZERO);
        assertThatThrownBy(() -> writes.set(key, big - 1, "y", Duration.ZERO))
                .isInstanceOfSatisfying(StaleFencingTokenException.class, e -> assertThat(e.newerToken()).isEqualTo(big));
        assertThatThrownBy(() -> writes.set(key, 99, "z", Duration.ZERO)).isInstanceOf(StaleFencingTokenException.class);
    }

    /** Concurrent writers with random tokens: the value is always the one of the highest token ever written. */
    @Test
    void concurrentWritersLeaveTheHighestTokensValue() throws Exception {
        String key = "race:" + System.nanoTime();
        AtomicLong highest = new AtomicLong(-1);
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicInteger refused = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> {
                for (int i = 0; i < 300; i++) {
                    long token = ThreadLocalRandom.current().nextLong(1_000);
                    try {
                        writes.set(key, token, Long.toString(token), Duration.ZERO);
                        highest.accumulateAndGet(token, Math::max);
                    } catch (StaleFencingTokenException e) {
                        refused.incrementAndGet();
                        if (e.newerToken() <= token) {
                            unexpected.add(e);
                        }
                    } catch (Throwable e) {
                        unexpected.add(e);
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(30_000);
        }
        assertThat(unexpected).isEmpty();
        assertThat(refused.get()).isPositive();
        assertThat(writes.fence(key)).isEqualTo(highest.get());
        assertThat(redisson.<String>getBucket(key, StringCodec.INSTANCE).get()).isEqualTo(Long.toString(highest.get()));
    }

    /** The fence key shares the data key's Cluster slot: asked of a real cluster-mode redis-server. */
    @Test
    void fenceKeysShareTheDataKeysClusterSlot() throws Exception {
        clusterNode = new RedisServer().args("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf");
        clusterNode.start();
        for (String key : List.of("account:42", "{user:7}:profile", "a{b", "ключ:1", "{tag}")) {
            String fence = RedisFenceScripts.fenceKey(key);
            assertThat(clusterNode.command("CLUSTER", "KEYSLOT", fence)).as(key + " -> " + fence)
                    .isEqualTo(clusterNode.command("CLUSTER", "KEYSLOT", key));
        }
        assertThat(RedisFenceScripts.fenceKey("account:42")).isEqualTo("{account:42}:fence");
        assertThat(RedisFenceScripts.fenceKey("{user:7}:profile")).isEqualTo("{user:7}:profile:fence");
        assertThatThrownBy(() -> RedisFenceScripts.fenceKey("x{}y:{z}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hash tag");
    }

    /** (d) Bad input: IllegalArgumentException naming the key and the fix; nothing written. */
    @Test
    void badInputIsRefusedWithAClearMessage() {
        assertThatThrownBy(() -> writes.set(null, 1, "v", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be null");
        assertThatThrownBy(() -> writes.set(" ", 1, "v", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> writes.set("k:bad", (LockLease) null, "v"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'k:bad'").hasMessageContaining("LockLease");
        assertThatThrownBy(() -> writes.set("k:bad", -1, "v", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'k:bad'").hasMessageContaining("negative");
        assertThatThrownBy(() -> writes.set("k:bad", 1, null, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'k:bad'");
        assertThatThrownBy(() -> writes.hset("k:bad", 1, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no fields");
        assertThat(writes.fence("k:bad")).isEqualTo(-1);
    }
}
