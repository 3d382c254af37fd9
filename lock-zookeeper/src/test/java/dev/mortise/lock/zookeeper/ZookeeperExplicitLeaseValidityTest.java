package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockLostException;
import dev.mortise.lock.LockSpec;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 14, finding 4, on ZooKeeper: an explicit lease, or an extend, longer than what one
 * confirmation is worth on this backend ({@link ZookeeperLockBackend#validity}: two thirds
 * of the granted session timeout) must not be counted on locally for longer than that,
 * because the ensemble may expire the session — and grant the lock to another client —
 * about one session timeout after it last heard of the holder, whatever lease was asked.
 *
 * <p>These tests need the core to apply {@code validity(..)} to explicit leases and to
 * {@code extend} as it does to renewed holds; until it does they fail.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZookeeperExplicitLeaseValidityTest {

    /** Asked of a server with a 1 s tick, which grants it as is: one confirmation is worth 2 s. */
    private static final Duration SESSION = Duration.ofSeconds(3);
    private static final Duration BOUND = Duration.ofMillis(2_000);
    private static final Duration LONG_LEASE = Duration.ofSeconds(60);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final CountDownLatch unblock = new CountDownLatch(1);
    private TestingServer server;

    @AfterEach
    void close() throws Exception {
        unblock.countDown();
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (RuntimeException e) {
                // a lease that was lost on purpose
            }
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anExplicitLeaseLongerThanTheBoundIsValidOnlyUpToTheBoundWithoutAConfirmation() throws Exception {
        server = ZookeeperTestServers.startServer(1_000);
        ZookeeperLockBackend backend = backend(track(ZookeeperTestServers.curator(server.getConnectString(), SESSION)));
        backend.ping();
        assertThat(backend.validity(LONG_LEASE)).isEqualTo(BOUND);
        LockClient client = track(LockClient.builder(backend).build());

        LockLease lease = client.acquire(LockSpec.of(key("explicit")).waitFor(Duration.ofSeconds(5)).lease(LONG_LEASE));
        assertThat(lease.remaining()).as("an explicit %s lease on a %s session", LONG_LEASE, SESSION)
                .isLessThanOrEqualTo(BOUND);

        // The session is healthy, but nothing confirmed the hold since it was granted.
        Thread.sleep(BOUND.plusMillis(700).toMillis());
        assertThat(lease.isValid()).as("valid %s after the grant, with no confirmation since", BOUND.plusMillis(700))
                .isFalse();
        assertThatThrownBy(lease::ensureValid).isInstanceOf(LockLostException.class);
    }

    @Test
    void extendingAnExplicitLeaseBeyondTheBoundCountsOnlyUpToTheBound() throws Exception {
        server = ZookeeperTestServers.startServer(1_000);
        ZookeeperLockBackend backend = backend(track(ZookeeperTestServers.curator(server.getConnectString(), SESSION)));
        LockClient client = track(LockClient.builder(backend).build());

        try (LockLease lease = client.acquire(LockSpec.of(key("extend")).waitFor(Duration.ofSeconds(5))
                .lease(Duration.ofSeconds(1)))) {
            lease.extend(LONG_LEASE);
            assertThat(lease.remaining()).as("after extend(%s) on a %s session", LONG_LEASE, SESSION)
                    .isLessThanOrEqualTo(BOUND);
            // Each extend is a confirmation: extending again keeps the hold, each time for at most the bound.
            Thread.sleep(1_000);
            lease.extend(LONG_LEASE);
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remaining()).isLessThanOrEqualTo(BOUND);
        }
    }

    /**
     * The holder goes silent (its connection frozen, as in a partition or a long pause) and
     * its client's connection events are held up (a paused process does not run them
     * either): the ensemble expires its session after the session timeout and grants the
     * lock to a second client. The first lease must have stopped reporting itself valid by
     * then, on its own clock.
     */
    @Test
    void aSilentlyExpiredHolderNoLongerReportsValidOnceAnotherClientIsGranted() throws Exception {
        server = ZookeeperTestServers.startServer(1_000);
        FreezableProxy proxy = track(new FreezableProxy(server.getPort()));
        CuratorFramework holderCurator = track(ZookeeperTestServers.curator(proxy.connectString(), SESSION));
        LockClient holder = track(LockClient.builder(backend(holderCurator)).build());
        LockClient other = track(LockClient.builder(backend(track(ZookeeperTestServers.curator(
                server.getConnectString(), Duration.ofSeconds(10))))).build());
        String key = key("silent");

        LockLease first = holder.acquire(LockSpec.of(key).waitFor(Duration.ofSeconds(5)).lease(LONG_LEASE));
        holdUpEvents(holderCurator);
        proxy.freeze();

        try (LockLease second = other.acquire(LockSpec.of(key).waitFor(Duration.ofSeconds(30)).lease(LONG_LEASE))) {
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(first.isValid()).as("the silent holder's lease once another client holds the lock").isFalse();
            assertThatThrownBy(first::ensureValid).isInstanceOf(LockLostException.class);
        }
    }

    /**
     * Blocks the holder's ZooKeeper event thread in a watch callback, so Curator (and so the
     * backend's session guard) hears of no disconnection or expiry until the test ends.
     */
    private void holdUpEvents(CuratorFramework curator) throws Exception {
        String trigger = "/explicit-validity-block-" + UUID.randomUUID();
        CountDownLatch entered = new CountDownLatch(1);
        ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
        zk.exists(trigger, event -> {
            entered.countDown();
            try {
                unblock.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        zk.create(trigger, new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                org.apache.zookeeper.CreateMode.EPHEMERAL);
        assertThat(entered.await(10, TimeUnit.SECONDS)).as("the holder's event thread is held up").isTrue();
    }

    private ZookeeperLockBackend backend(CuratorFramework curator) {
        return track(ZookeeperLockBackend.builder().client(curator).operationTimeout(Duration.ofSeconds(3)).build());
    }

    private <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    private static String key(String name) {
        return "explicit-validity:" + name + ":" + UUID.randomUUID();
    }
}
