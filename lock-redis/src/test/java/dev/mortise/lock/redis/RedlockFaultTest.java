package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostEvent;
import dev.mortise.lock.LockTimeoutException;
import dev.mortise.lock.redis.internal.RedisKeys;
import dev.mortise.lock.spi.Attempt;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.tck.server.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Redlock under node failures, on five real redis-servers started afresh for each test. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedlockFaultTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration SLACK = Duration.ofSeconds(5);

    private final List<RedisServer> servers = new ArrayList<>();
    private final List<LockClient> clients = new ArrayList<>();
    private final String key = "redlock:" + UUID.randomUUID();

    /** A builder on the driver under test (Redisson here; the Lettuce subclass overrides it). */
    RedlockBackendBuilder builder() {
        return RedlockBackend.builder();
    }

    @BeforeEach
    void startServers() {
        for (int i = 0; i < 5; i++) {
            servers.add(new RedisServer());
            // One at a time: a launched server binds its port only later, and FreePorts could
            // hand the same free port to the next one meanwhile.
            servers.get(i).start();
        }
    }

    @AfterEach
    void stopServers() {
        clients.forEach(LockClient::close);
        servers.forEach(RedisServer::close);
    }

    private LockClient newClient() {
        RedlockBackend backend = builder()
                .nodes(servers.stream().map(RedisServer::address).toArray(String[]::new))
                .nodeTimeout(Duration.ofMillis(500)).build();
        LockClient client = LockClient.builder(backend).defaultLease(LEASE).build();
        clients.add(client);
        return client;
    }

    private int lockKeysOn(List<RedisServer> nodes) throws Exception {
        int count = 0;
        for (RedisServer server : nodes) {
            count += Integer.parseInt(server.command("EXISTS", RedisKeys.of("mortise", key).lock()).substring(1));
        }
        return count;
    }

    @Test
    void twoOfFiveNodesKilledStillGrantExcludeAndRenew() throws Exception {
        LockClient a = newClient();
        LockClient b = newClient();
        servers.get(0).kill();
        servers.get(1).kill();
        long before;
        try (LockLease lease = a.acquire(key, SLACK)) {
            before = lease.fencingToken();
            assertThat(b.tryAcquire(key)).as("the other client is excluded by the surviving majority").isEmpty();
            Thread.sleep(LEASE.multipliedBy(2).toMillis());
            assertThat(lease.isValid()).as("renewed by the three surviving nodes").isTrue();
            assertThat(b.tryAcquire(key)).isEmpty();
        }
        try (LockLease next = b.acquire(key, SLACK)) {
            assertThat(next.fencingToken()).isGreaterThan(before);
        }
    }

    @Test
    void threeOfFiveNodesKilledNeverGrant() throws Exception {
        LockClient a = newClient();
        servers.get(0).kill();
        servers.get(2).kill();
        servers.get(4).kill();
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.tryAcquire(key)).isInstanceOf(LockBackendException.class)
                .hasMessageContaining(key).hasMessageContaining("redlock").hasMessageContaining("majority");
        assertThatThrownBy(() -> a.acquire(key, Duration.ofSeconds(1)))
                .isInstanceOfAny(LockBackendException.class, LockTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SLACK.multipliedBy(2));
        assertThat(a.heldLocks()).isEmpty();
        assertThat(lockKeysOn(List.of(servers.get(1), servers.get(3)))).as("partial holds released").isZero();
    }

    @Test
    void losingTheMajorityWhileHeldFiresOnLost() throws Exception {
        LockClient a = newClient();
        AtomicReference<LockLostEvent> lost = new AtomicReference<>();
        LockLease lease = a.acquire(key, SLACK).onLost(lost::set);
        servers.get(1).kill();
        servers.get(2).kill();
        servers.get(3).kill();
        long deadline = System.nanoTime() + LEASE.plus(SLACK).toNanos();
        while (lost.get() == null && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(lost.get()).as("onLost once renewals cannot reach a majority").isNotNull();
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void tokensKeepIncreasingWhenANodeRestartsWithoutItsState() throws Exception {
        LockClient a = newClient();
        long last = 0;
        for (int i = 0; i < 5; i++) {
            try (LockLease lease = a.acquire(key, SLACK)) {
                assertThat(lease.fencingToken()).isGreaterThan(last);
                last = lease.fencingToken();
            }
        }
        RedisKeys keys = RedisKeys.of("mortise", key);
        servers.get(0).restart();
        assertThat(servers.get(0).command("GET", keys.fence())).as("the restarted node lost its counter").isEqualTo("$-1");
        // Only nodes 0, 1, 2 remain: every majority now includes the node that forgot.
        servers.get(3).kill();
        servers.get(4).kill();
        try (LockLease lease = newClient().acquire(key, SLACK)) {
            assertThat(lease.fencingToken()).isGreaterThan(last);
            last = lease.fencingToken();
        }
        assertThat(Long.parseLong(servers.get(0).command("GET", keys.fence()))).as("raised on the forgetful node")
                .isEqualTo(last);
    }

    @Test
    void tokensKeepIncreasingWhenCountersDivergedAndANodeForgets() throws Exception {
        // Nodes 3 and 4 miss the first grants, so their counters lag far behind 0, 1, 2.
        servers.get(3).kill();
        servers.get(4).kill();
        LockClient a = newClient();
        long last = 0;
        for (int i = 0; i < 5; i++) {
            try (LockLease lease = a.acquire(key, SLACK)) {
                last = lease.fencingToken();
            }
        }
        servers.get(3).start();
        servers.get(4).start();
        try (LockLease lease = newClient().acquire(key, SLACK)) {
            assertThat(lease.fencingToken()).isGreaterThan(last);
            last = lease.fencingToken();
        }
        // Node 0 forgets; 1 and 2 go down. The majority {0, 3, 4} only knows the last token
        // because the raise round wrote it to 3 and 4.
        servers.get(0).restart();
        servers.get(1).kill();
        servers.get(2).kill();
        try (LockLease lease = newClient().acquire(key, SLACK)) {
            assertThat(lease.fencingToken()).as("token after the lagging nodes and a forgetful one form the majority")
                    .isGreaterThan(last);
        }
    }

    @Test
    void tokensKeepIncreasingWhenTwoNodesForgetAfterAFullRound() throws Exception {
        long last;
        try (LockLease lease = newClient().acquire(key, SLACK)) {
            last = lease.fencingToken();
        }
        servers.get(0).restart();
        servers.get(1).restart();
        servers.get(2).kill();
        servers.get(3).kill();
        // The only majority left is {0, 1, 4}: two nodes that forgot and one that kept the token.
        try (LockLease lease = newClient().acquire(key, SLACK)) {
            assertThat(lease.fencingToken()).isGreaterThan(last);
        }
    }

    @Test
    void aPausedNodeCostsAtMostTheNodeTimeout() throws Exception {
        LockClient a = newClient();
        a.acquire(key, SLACK).close();
        servers.get(3).pause();
        try {
            long start = System.nanoTime();
            try (LockLease lease = a.acquire(key, SLACK)) {
                assertThat(lease.isValid()).isTrue();
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SLACK);
        } finally {
            servers.get(3).resume();
        }
    }

    @Test
    void anAttemptThatOutlivesItsLeaseIsNotGrantedAndLeavesNothing() throws Exception {
        try (RedlockBackend backend = builder()
                .nodes(servers.stream().map(RedisServer::address).toArray(String[]::new)).build()) {
            // 2 ms of lease cannot outlast 2 ms of allowed drift: the validity is spent before the rounds end.
            Attempt attempt = backend.tryAcquire(new LockRequest(key, "owner-1", Duration.ofMillis(2), false));
            assertThat(attempt.isGranted()).isFalse();
            assertThat(lockKeysOn(servers)).isZero();
            assertThat(backend.tryAcquire(new LockRequest(key, "owner-2", LEASE, false)).isGranted()).isTrue();
        }
    }
}
