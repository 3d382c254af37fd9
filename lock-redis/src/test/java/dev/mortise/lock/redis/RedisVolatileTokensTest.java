package dev.mortise.lock.redis;

import dev.mortise.lock.FencingTokens;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing tokens on a Redis that forgets: servers run without persistence (the launcher's
 * default) and are restarted between grants, which empties them. With the default
 * {@link FencingTokens#SERVER_CLOCK} the first token after the restart must still be above
 * every token issued before it; {@link FencingTokens#COUNTER} keeps the old small numbers
 * and starts again from 1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisVolatileTokensTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String key = "volatile:" + UUID.randomUUID();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private RedisServer server() {
        RedisServer server = new RedisServer();
        server.start();
        closeables.add(server);
        return server;
    }

    private LockClient client(LockBackend backend) {
        LockClient client = LockClient.builder(backend).defaultLease(Duration.ofSeconds(5)).build();
        closeables.add(client);
        return client;
    }

    /** Acquires and releases the key a few times; returns the tokens in grant order. */
    private List<Long> cycle(LockClient client, int times) throws Exception {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            try (LockLease lease = client.acquire(key, WAIT)) {
                tokens.add(lease.fencingToken());
            }
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("tokens %s strictly increase", tokens).isGreaterThan(tokens.get(i - 1));
        }
        return tokens;
    }

    private void restartsWithoutLosingOrder(Supplier<LockBackend> backend, List<RedisServer> servers) throws Exception {
        List<Long> before = cycle(client(backend.get()), 5);
        for (RedisServer server : servers) {
            server.restart();
            assertThat(server.command("DBSIZE")).as("a restart without persistence empties the server").isEqualTo(":0");
        }
        long after = cycle(client(backend.get()), 1).get(0);
        assertThat(after).as("first token after a restart that lost the counter, tokens before: %s", before)
                .isGreaterThan(before.get(before.size() - 1));
    }

    @Test
    void tokensKeepIncreasingAcrossARestartThatLosesTheCounter() throws Exception {
        RedisServer server = server();
        restartsWithoutLosingOrder(() -> RedisLockBackend.builder().address(server.address()).build(), List.of(server));
    }

    @Test
    void fairModeTokensKeepIncreasingAcrossARestartThatLosesTheCounter() throws Exception {
        RedisServer server = server();
        restartsWithoutLosingOrder(() -> RedisLockBackend.builder().address(server.address()).fair(true).build(),
                List.of(server));
    }

    @Test
    void redlockTokensKeepIncreasingWhenEveryNodeRestartsEmpty() throws Exception {
        List<RedisServer> servers = List.of(server(), server(), server());
        restartsWithoutLosingOrder(() -> RedlockBackend.builder()
                .nodes(servers.stream().map(RedisServer::address).toArray(String[]::new)).build(), servers);
    }

    /**
     * A failover that loses unreplicated increments: the replica is cut off (as if the
     * master's last writes never reached it), the master grants more, and then the stale
     * replica is promoted and grants: its token must still be above the master's last.
     */
    @Test
    void tokensKeepIncreasingAcrossAFailoverToAReplicaThatMissedTheLastIncrements() throws Exception {
        RedisServer master = server();
        RedisServer replica = new RedisServer().args("--replicaof", "127.0.0.1", Integer.toString(master.port()));
        replica.start();
        closeables.add(replica);
        String fence = RedisKeys.of("mortise", key).fence();
        List<Long> replicated = cycle(client(RedisLockBackend.builder().address(master.address()).build()), 2);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!replica.command("GET", fence).equals(master.command("GET", fence))) {
            assertThat(System.nanoTime() - deadline).as("replica to catch up").isNegative();
            Thread.sleep(20);
        }
        assertThat(replica.command("REPLICAOF", "NO", "ONE")).isEqualTo("+OK");
        List<Long> lost = cycle(client(RedisLockBackend.builder().address(master.address()).build()), 3);
        assertThat(replica.command("GET", fence)).as("the promoted replica missed the last increments")
                .isEqualTo(Long.toString(replicated.get(1)));
        long after = cycle(client(RedisLockBackend.builder().address(replica.address()).build()), 1).get(0);
        assertThat(after).as("first token of the promoted replica, tokens of the old master: %s then %s",
                replicated, lost).isGreaterThan(lost.get(lost.size() - 1));
    }

    @Test
    void counterOptionKeepsSmallNumbersAndRestartsFromOne() throws Exception {
        RedisServer server = server();
        Supplier<LockBackend> backend = () -> RedisLockBackend.builder().address(server.address())
                .fencingTokens(FencingTokens.COUNTER).build();
        assertThat(cycle(client(backend.get()), 3)).containsExactly(1L, 2L, 3L);
        server.restart();
        assertThat(cycle(client(backend.get()), 2)).as("the plain counter starts again on an empty server")
                .containsExactly(1L, 2L);
    }

    @Test
    void fairHandOverWithTheCounterOptionCountsByOne() throws Exception {
        RedisServer server = server();
        Supplier<LockBackend> backend = () -> RedisLockBackend.builder().address(server.address()).fair(true)
                .fencingTokens(FencingTokens.COUNTER).build();
        assertThat(cycle(client(backend.get()), 3)).containsExactly(1L, 2L, 3L);
    }

    @Test
    void serverClockTokensAreMicrosecondsOfTheServerClock() throws Exception {
        RedisServer server = server();
        long floor = System.currentTimeMillis() * 1000 - TimeUnit.MINUTES.toMicros(10);
        List<Long> tokens = cycle(client(RedisLockBackend.builder().address(server.address()).build()), 20);
        assertThat(tokens.get(0)).as("a server-clock token is the server's time in microseconds").isGreaterThan(floor);
    }
}
