package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.redis.internal.ExclusiveCommands;
import dev.mortise.lock.redis.internal.FairCommands;
import dev.mortise.lock.redis.internal.HoldCommands;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.tck.server.RedisServer;
import dev.mortise.lock.tck.server.StallingProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.config.HostPortNatMapper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Contract 7 when the acquire's reply is late (issue 14, finding 8): an acquire whose answer
 * does not come within the operation timeout may still run on the server after the caller gave
 * up, and after the clean-up the backend sent on another pooled connection. Whatever order they
 * arrive in, nothing of the attempt may remain on the server. A {@link StallingProxy} holds the
 * acquire's bytes on their connection for a while, so the clean-up reaches Redis first; the
 * lease is long (30 s), so a leftover key would still be there when the test looks.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisLateAcquireTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TIMEOUT = Duration.ofMillis(300);
    private static final long STALL_MS = 1500;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String key = "late:" + UUID.randomUUID();
    private final RedisKeys keys = RedisKeys.of("mortise", key);

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closing(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    private RedisServer server() {
        RedisServer server = closing(new RedisServer());
        server.start();
        return server;
    }

    private static LockRequest request(String key) {
        return new LockRequest(key, "owner-" + UUID.randomUUID(), LEASE, false);
    }

    /** Loads the scripts on the server (EVALSHA then finds them) and opens the pooled connections. */
    private static void warmUp(LockBackend backend) {
        for (int i = 0; i < 3; i++) {
            Attempt attempt = backend.tryAcquire(request("warm-up:" + UUID.randomUUID()));
            assertThat(attempt.isGranted()).isTrue();
            assertThat(backend.release(attempt.grant().orElseThrow())).isTrue();
        }
    }

    /** Waits until every stalled chunk was forwarded, then until {@code count} reads 0 (at most 5 s). */
    private static void assertNothingLeft(List<StallingProxy> proxies, int stalls, Counter count, String what)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (proxies.stream().mapToInt(StallingProxy::stallsDone).sum() < stalls) {
            assertThat(System.nanoTime() - deadline).as("stalled acquire forwarded").isNegative();
            Thread.sleep(20);
        }
        long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int left = count.get();
        while (left != 0 && System.nanoTime() - settle < 0) {
            Thread.sleep(50);
            left = count.get();
        }
        assertThat(left).as(what + " left on the server after the late acquire ran (the lease of "
                + LEASE.toSeconds() + " s has not run out)").isZero();
    }

    @FunctionalInterface
    interface Counter {
        int get() throws Exception;
    }

    private static int exists(RedisServer server, String... names) throws Exception {
        int n = 0;
        for (String name : names) {
            n += Integer.parseInt(server.command("EXISTS", name).substring(1));
        }
        return n;
    }

    // ---- single server -----------------------------------------------------------------------

    @Test
    void timedOutAcquireOnOneServerLeavesNoLock() throws Exception {
        RedisServer server = server();
        StallingProxy proxy = closing(new StallingProxy(server.port()));
        RedisLockBackend backend = closing(RedisLockBackend.builder().address(proxy.redisAddress())
                .operationTimeout(TIMEOUT).build());
        warmUp(backend);

        proxy.stall(ExclusiveCommands.ACQUIRE.sha(), STALL_MS);
        assertThatThrownBy(() -> backend.tryAcquire(request(key))).isInstanceOf(LockBackendException.class);

        assertNothingLeft(List.of(proxy), 1, () -> exists(server, keys.lock()), "lock key");
        // and the key is free for others at once, not after a lease
        assertThat(backend.tryAcquire(request(key)).isGranted()).isTrue();
    }

    @Test
    void timedOutAcquireInFairModeLeavesNoLockAndNoQueueEntry() throws Exception {
        RedisServer server = server();
        StallingProxy proxy = closing(new StallingProxy(server.port()));
        RedisLockBackend backend = closing(RedisLockBackend.builder().address(proxy.redisAddress())
                .operationTimeout(TIMEOUT).fair(true).build());
        warmUp(backend);
        // someone holds the key while the waiter's first attempt is on its way
        LockRequest holder = request(key);
        assertThat(backend.tryAcquire(holder).isGranted()).isTrue();
        LockRequest waiter = request(key);

        proxy.stall(FairCommands.ACQUIRE.sha(), STALL_MS);
        assertThatThrownBy(() -> backend.acquire(waiter, Duration.ofSeconds(10)))
                .isInstanceOf(LockBackendException.class);
        server.command("DEL", keys.lock()); // the holder goes: a late acquire would now take the key

        assertNothingLeft(List.of(proxy), 1, () -> exists(server, keys.lock(), keys.queue(), keys.waiters()),
                "lock key or queue entry");
    }

    // ---- cluster -------------------------------------------------------------------------------

    @Test
    void timedOutAcquireOnACluster() throws Exception {
        RedisClusterFixture cluster = closing(new RedisClusterFixture(3));
        List<StallingProxy> proxies = new ArrayList<>();
        Map<String, String> nat = new HashMap<>();
        for (String address : cluster.addresses()) {
            int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
            StallingProxy proxy = closing(new StallingProxy(port));
            proxies.add(proxy);
            nat.put("127.0.0.1:" + port, "127.0.0.1:" + proxy.port());
        }
        HostPortNatMapper mapper = new HostPortNatMapper();
        mapper.setHostsPortMap(nat);
        RedisLockBackend backend = closing(RedisLockBackend.builder()
                .clusterNodes(proxies.stream().map(StallingProxy::redisAddress).toArray(String[]::new))
                .configure(c -> c.useClusterServers().setNatMapper(mapper))
                .operationTimeout(TIMEOUT).build());
        for (int i = 0; i < 5; i++) {
            warmUp(backend);
        }

        StallingProxy owner = proxies.get(cluster.ownerOf(keys.lock()));
        owner.stall(ExclusiveCommands.ACQUIRE.sha(), STALL_MS);
        assertThatThrownBy(() -> backend.tryAcquire(request(key))).isInstanceOf(LockBackendException.class);

        assertNothingLeft(proxies, 1, () -> Integer.parseInt(cluster.onOwner("EXISTS", keys.lock()).substring(1)),
                "lock key");
    }

    // ---- Redlock -------------------------------------------------------------------------------

    private RedlockBackend redlock(List<RedisServer> servers, List<StallingProxy> proxies) throws Exception {
        for (int i = 0; i < 5; i++) {
            servers.add(server());
            proxies.add(closing(new StallingProxy(servers.get(i).port())));
        }
        RedlockBackend backend = closing(RedlockBackend.builder()
                .nodes(proxies.stream().map(StallingProxy::redisAddress).toArray(String[]::new))
                .nodeTimeout(TIMEOUT).build());
        warmUp(backend);
        return backend;
    }

    private int lockKeysOn(List<RedisServer> servers) throws Exception {
        int n = 0;
        for (RedisServer server : servers) {
            n += exists(server, keys.lock());
        }
        return n;
    }

    @Test
    void redlockAttemptWhoseMajorityAnswersLateLeavesNoLockOnAnyNode() throws Exception {
        List<RedisServer> servers = new ArrayList<>();
        List<StallingProxy> proxies = new ArrayList<>();
        RedlockBackend backend = redlock(servers, proxies);

        for (int i = 0; i < 3; i++) {
            proxies.get(i).stall(ExclusiveCommands.ACQUIRE.sha(), STALL_MS);
        }
        assertThatThrownBy(() -> backend.tryAcquire(request(key))).isInstanceOf(LockBackendException.class)
                .hasMessageContaining("only 2 of 5");

        assertNothingLeft(proxies, 3, () -> lockKeysOn(servers), "lock keys");
    }

    @Test
    void redlockCleanUpThatIsLostOnTheWayIsRetriedUntilTheNodeConfirmsIt() throws Exception {
        List<RedisServer> servers = new ArrayList<>();
        List<StallingProxy> proxies = new ArrayList<>();
        RedlockBackend backend = redlock(servers, proxies);

        for (int i = 0; i < 3; i++) {
            proxies.get(i).stall(ExclusiveCommands.ACQUIRE.sha(), STALL_MS);
            proxies.get(i).drop(HoldCommands.CANCEL.sha()); // the first clean-up never arrives
        }
        assertThatThrownBy(() -> backend.tryAcquire(request(key))).isInstanceOf(LockBackendException.class);

        assertNothingLeft(proxies, 3, () -> lockKeysOn(servers), "lock keys");
        assertThat(proxies.stream().limit(3).mapToInt(StallingProxy::drops).sum()).as("clean-ups dropped")
                .isEqualTo(3);
    }

    @Test
    void redlockGrantReleasedBeforeALateNodeAnsweredLeavesNoLockOnThatNode() throws Exception {
        List<RedisServer> servers = new ArrayList<>();
        List<StallingProxy> proxies = new ArrayList<>();
        RedlockBackend backend = redlock(servers, proxies);

        proxies.get(4).stall(ExclusiveCommands.ACQUIRE.sha(), STALL_MS);
        Attempt attempt = backend.tryAcquire(request(key));
        assertThat(attempt.isGranted()).as("four of five nodes answered").isTrue();
        assertThat(backend.release(attempt.grant().orElseThrow())).isTrue();

        assertNothingLeft(proxies, 1, () -> lockKeysOn(servers), "lock keys");
    }
}
