package dev.mortise.lock.redis;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockSpec;
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
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redlock's shared mode, node by node (the read-write contract runs in {@code RedlockContractTest}):
 * writer-waiting markers count per node, so a reader is held back only when markers refuse it on
 * enough nodes to deny it a majority; a share's token is the quorum's maximum and is raised on the
 * nodes; a share lives on a majority of nodes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedlockSharedModeTest {

    private static final List<RedisServer> servers = new ArrayList<>();
    private final List<LockClient> clients = new ArrayList<>();
    private final String key = "redlock-rw:" + UUID.randomUUID();
    private final RedisKeys keys = RedisKeys.of("mortise", key);

    @BeforeAll
    static void startServers() {
        for (int i = 0; i < 5; i++) {
            servers.add(new RedisServer());
            servers.get(i).start(); // one at a time, see RedlockContractTest
        }
    }

    @AfterAll
    static void stopServers() {
        servers.forEach(RedisServer::close);
        servers.clear();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private LockClient newClient() {
        RedlockBackend backend = RedlockBackend.builder()
                .nodes(servers.stream().map(RedisServer::address).toArray(String[]::new))
                .nodeTimeout(Duration.ofSeconds(1)).build();
        LockClient client = LockClient.builder(backend).defaultLease(Duration.ofSeconds(5)).build();
        clients.add(client);
        return client;
    }

    private static LockSpec shared(String key) {
        return LockSpec.of(key).shared().waitFor(Duration.ZERO);
    }

    private int nodesWith(String redisKey) throws Exception {
        int count = 0;
        for (RedisServer server : servers) {
            count += Integer.parseInt(server.command("EXISTS", redisKey).substring(1));
        }
        return count;
    }

    /** A live marker of a writer that is not waiting at all (a crashed one) on the first {@code n} nodes. */
    private void markOn(int n) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        for (int i = 0; i < n; i++) {
            servers.get(i).command("HSET", keys.writers(), "crashed-writer", Long.toString(deadline));
            servers.get(i).command("PEXPIRE", keys.writers(), "60000");
        }
    }

    @Test
    void markersOnAMinorityOfNodesDoNotHoldReadersBackAndOnAMajorityTheyDo() throws Exception {
        LockClient reader = newClient();
        markOn(2);
        try (LockLease lease = reader.tryAcquire(shared(key)).orElseThrow()) {
            assertThat(nodesWith(keys.readers())).as("the share lives on the three unmarked nodes").isEqualTo(3);
            assertThat(lease.isValid()).isTrue();
        }
        markOn(3);
        assertThat(reader.tryAcquire(shared(key))).as("markers refuse a majority").isEmpty();
        assertThat(nodesWith(keys.readers())).as("the refused attempt gave back its minority").isZero();
        for (RedisServer server : servers) {
            server.command("DEL", keys.writers());
        }
        assertThat(reader.tryAcquire(shared(key))).hasValueSatisfying(LockLease::close);
    }

    @Test
    void aWaitingWriterMarksEveryNodeAndReadersWaitBehindItUntilItIsDone() throws Exception {
        LockClient a = newClient();
        LockClient b = newClient();
        LockLease first = a.acquire(LockSpec.of(key).shared().waitFor(Duration.ofSeconds(5)));
        AtomicReference<LockLease> writer = new AtomicReference<>();
        Thread w = new Thread(() -> writer.set(b.acquire(LockSpec.of(key).waitFor(Duration.ofSeconds(30)))));
        w.setDaemon(true);
        w.start();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (nodesWith(keys.writers()) < 5 && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        assertThat(nodesWith(keys.writers())).as("the waiting writer's marker on every node").isEqualTo(5);
        assertThat(newClient().tryAcquire(shared(key))).as("a new reader behind the waiting writer").isEmpty();
        first.close();
        w.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(writer.get()).as("the writer got in once the reader left").isNotNull();
        long writerToken = writer.get().fencingToken();
        until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (nodesWith(keys.writers()) > 0 && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        assertThat(nodesWith(keys.writers())).as("a granted writer withdraws its markers").isZero();
        writer.get().close();
        try (LockLease next = a.tryAcquire(shared(key)).orElseThrow()) {
            assertThat(next.fencingToken()).isGreaterThan(writerToken);
        }
        assertThat(nodesWith(keys.lock()) + nodesWith(keys.readers()) + nodesWith(keys.writers())).isZero();
    }

    @Test
    void aSharesTokenIsTheQuorumsMaximumRaisedOnTheNodes() throws Exception {
        LockClient reader = newClient();
        // Far ahead of the server-clock tokens (µs since the epoch) and still below 2^53.
        long ahead = 9_000_000_000_000_000L;
        servers.get(4).command("SET", keys.fence(), Long.toString(ahead));
        try (LockLease lease = reader.tryAcquire(shared(key)).orElseThrow()) {
            assertThat(lease.fencingToken()).as("the node that was ahead sets the token").isEqualTo(ahead + 1);
            for (RedisServer server : servers) {
                assertThat(Long.parseLong(server.command("GET", keys.fence()))).as("counter raised on every node")
                        .isGreaterThanOrEqualTo(ahead + 1);
            }
        }
        try (LockLease writer = newClient().tryAcquire(key).orElseThrow()) {
            assertThat(writer.fencingToken()).isGreaterThan(ahead + 1);
        }
    }

    /**
     * Releasing a share whose lease ran out on the nodes is not a release of a live hold: the
     * release answers false, so the core reports the loss. The cancel script Redlock releases with
     * counted an expired reader entry (still in the hash until pruned) as the owner's live share.
     */
    @Test
    void releasingAShareThatExpiredOnTheNodesAnswersFalse() throws Exception {
        try (RedlockBackend backend = RedlockBackend.builder()
                .nodes(servers.stream().map(RedisServer::address).toArray(String[]::new))
                .nodeTimeout(Duration.ofSeconds(1)).build()) {
            String owner = "expired-share-" + UUID.randomUUID();
            dev.mortise.lock.spi.Grant share = backend.tryAcquire(new dev.mortise.lock.spi.LockRequest(key, owner,
                    Duration.ofMillis(300), false, dev.mortise.lock.LockMode.SHARED)).grant().orElseThrow();
            // A second, live share keeps the readers hash (and the expired entry in it) on the nodes.
            dev.mortise.lock.spi.Grant live = backend.tryAcquire(new dev.mortise.lock.spi.LockRequest(key,
                    owner + "-live", Duration.ofSeconds(30), false, dev.mortise.lock.LockMode.SHARED))
                    .grant().orElseThrow();
            Thread.sleep(600);
            assertThat(backend.release(share)).as("the share had expired on every node").isFalse();
            assertThat(backend.release(live)).as("the live share was released").isTrue();
        }
    }
}
