package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.mortise.lock.zookeeper.ZookeeperTestServers.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15 item 4: a hold left to linger ({@code closeLingering}, the starter's
 * {@code holdAtLeast}) keeps the key for the whole linger even when its client closes
 * right after (a graceful shutdown ends the session and so the hold's ephemeral node), and
 * whatever it left behind is gone once the next owner has the key.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZookeeperLingerTest {

    private static final String ROOT = "/linger/locks";
    private static final Duration LINGER = Duration.ofSeconds(3);

    private TestingServer server;
    private CuratorFramework admin;
    private final List<LockClient> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = ZookeeperTestServers.startServer();
        admin = ZookeeperTestServers.admin(server.getConnectString());
    }

    @AfterEach
    void stop() throws Exception {
        clients.forEach(LockClient::close);
        admin.close();
        server.close();
    }

    private LockClient client() {
        LockClient client = LockClient.builder(ZookeeperLockBackend.builder().connectString(server.getConnectString())
                .rootPath(ROOT).operationTimeout(Duration.ofSeconds(5)).build()).build();
        clients.add(client);
        return client;
    }

    /** Holds, lingers for 3 s and closes its client at once; returns when the hold was granted. */
    private long lingerAndShutDown(String key) {
        LockClient first = client();
        LockLease lease = first.acquire(key, Duration.ofSeconds(5));
        long grantedAt = System.nanoTime();
        lease.closeLingering(LINGER);
        first.close();
        return grantedAt;
    }

    @Test
    void aLingeringHoldOutlivesItsClient() throws Exception {
        String key = "linger:" + UUID.randomUUID();
        long grantedAt = lingerAndShutDown(key);
        LockClient second = client();
        // Well inside the linger, the key stays busy (a loaded machine may take a while to get here).
        while (System.nanoTime() - grantedAt < LINGER.minusMillis(500).toNanos()) {
            long before = System.nanoTime();
            Optional<LockLease> early = second.tryAcquire(key);
            if (early.isPresent()) {
                early.get().close();
                assertThat(Duration.ofNanos(before - grantedAt)).as("granted before the linger ended")
                        .isGreaterThanOrEqualTo(LINGER);
            }
            Thread.sleep(100);
        }
        // Then it is granted soon after the linger ends.
        LockLease next = null;
        long deadline = grantedAt + LINGER.plusSeconds(8).toNanos();
        while (next == null && System.nanoTime() < deadline) {
            long before = System.nanoTime();
            next = second.tryAcquire(key).orElse(null);
            if (next == null) {
                Thread.sleep(100);
            } else {
                assertThat(Duration.ofNanos(before - grantedAt)).as("granted before the linger ended")
                        .isGreaterThanOrEqualTo(LINGER.minusMillis(5));
            }
        }
        assertThat(next).as("granted shortly after the linger").isNotNull();
        next.close();
        assertThat(residue(key)).as("nodes left under the key's parent").isZero();
    }

    @Test
    void aWaiterIsWokenWhenTheLingerEnds() throws Exception {
        String key = "linger:" + UUID.randomUUID();
        long grantedAt = lingerAndShutDown(key);
        LockClient second = client();
        try (LockLease next = second.acquire(key, Duration.ofSeconds(20))) {
            long waited = System.nanoTime() - grantedAt;
            assertThat(Duration.ofNanos(waited)).as("granted before the linger ended")
                    .isGreaterThanOrEqualTo(LINGER.minusMillis(5));
            assertThat(Duration.ofNanos(waited)).as("woken at the linger's end, not at the wait's")
                    .isLessThan(LINGER.plusSeconds(8));
        }
        assertThat(residue(key)).as("nodes left under the key's parent").isZero();
    }

    @Test
    void aWaiterQueuedBeforeTheLingerWaitsForItsEnd() throws Exception {
        String key = "linger:" + UUID.randomUUID();
        LockClient first = client();
        LockClient second = client();
        LockClient third = client();
        LockLease lease = first.acquire(key, Duration.ofSeconds(5));
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            try (LockLease next = second.acquire(key, Duration.ofSeconds(30))) {
                return System.nanoTime();
            }
        });
        // One more behind it: queued in order, woken only after the first waiter had its turn.
        await(Duration.ofSeconds(10), () -> residue(key) == 2, "the first waiter to queue");
        CompletableFuture<Long> last = CompletableFuture.supplyAsync(() -> {
            try (LockLease next = third.acquire(key, Duration.ofSeconds(30))) {
                return System.nanoTime();
            }
        });
        await(Duration.ofSeconds(10), () -> residue(key) == 3, "the second waiter to queue");
        long lingerFrom = System.nanoTime();
        lease.closeLingering(LINGER);
        first.close();
        long granted = waiter.get(30, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(granted - lingerFrom)).as("a waiter was granted before the linger ended")
                .isGreaterThanOrEqualTo(LINGER.minusMillis(5));
        assertThat(last.get(30, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(granted);
        await(Duration.ofSeconds(5), () -> residue(key) == 0, "nothing left under the key's parent");
    }

    @Test
    void aLingerWhileTheClientLivesEndsOnTimeAndLeavesNothing() throws Exception {
        String key = "linger:" + UUID.randomUUID();
        LockClient first = client();
        // connected before the linger starts: a session opened after it could take longer than the linger
        LockClient second = client();
        second.tryAcquire("linger:warm:" + UUID.randomUUID()).orElseThrow().close();
        LockLease lease = first.acquire(key, Duration.ofSeconds(5));
        long grantedAt = System.nanoTime();
        lease.closeLingering(Duration.ofMillis(1500));
        Optional<LockLease> during = second.tryAcquire(key);
        if (System.nanoTime() - grantedAt < TimeUnit.MILLISECONDS.toNanos(1300)) {
            assertThat(during).as("busy while lingering").isEmpty();
        }
        during.ifPresent(LockLease::close);
        // Nobody acquires again: the holder's own client removes what it left once the linger is over.
        await(Duration.ofSeconds(10), () -> residue(key) == 0, "the lingering hold's nodes to be removed");
        assertThat(Duration.ofNanos(System.nanoTime() - grantedAt)).isGreaterThanOrEqualTo(Duration.ofMillis(1495));
        second.tryAcquire(key).orElseThrow().close();
    }

    private int residue(String key) {
        try {
            return ZookeeperTestServers.children(admin, ROOT + "/"
                    + dev.mortise.lock.zookeeper.internal.LockPaths.segment(key)).size();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
