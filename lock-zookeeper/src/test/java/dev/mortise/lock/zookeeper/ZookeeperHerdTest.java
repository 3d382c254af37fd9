package dev.mortise.lock.zookeeper;

import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.zookeeper.internal.LockPaths;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.curator.test.WatchersDebug;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.mortise.lock.zookeeper.ZookeeperTestServers.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * No herd: 50 waiters queue on one key (spread over 10 backends, each its own session, as
 * 10 processes would be); each release must wake exactly one of them — its successor —
 * and grants must follow the queue order.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZookeeperHerdTest {

    private static final int BACKENDS = 10;
    private static final int WAITERS = 50;

    @Test
    void eachReleaseWakesExactlyOneWaiterInQueueOrder() throws Exception {
        String key = "herd:one-key";
        List<AutoCloseable> resources = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(WAITERS);
        try (TestingServer server = ZookeeperTestServers.startServer()) {
            CuratorFramework admin = ZookeeperTestServers.admin(server.getConnectString());
            resources.add(admin);
            List<CuratorFramework> sessions = new ArrayList<>();
            List<ZookeeperLockBackend> backends = new ArrayList<>();
            for (int i = 0; i <= BACKENDS; i++) {
                CuratorFramework curator = ZookeeperTestServers.curator(server.getConnectString(), Duration.ofSeconds(10));
                resources.add(curator);
                ZookeeperLockBackend backend = ZookeeperLockBackend.builder().client(curator).build();
                resources.add(backend);
                sessions.add(curator);
                backends.add(backend);
            }
            ZookeeperLockBackend holder = backends.get(BACKENDS);
            Grant first = holder.tryAcquire(request(key, "holder")).grant().orElseThrow();

            List<Long> grantOrder = Collections.synchronizedList(new ArrayList<>());
            List<Future<?>> waiters = new ArrayList<>();
            for (int w = 0; w < WAITERS; w++) {
                ZookeeperLockBackend backend = backends.get(w % BACKENDS);
                LockRequest request = request(key, "waiter-" + w);
                waiters.add(pool.submit(() -> {
                    Grant grant = backend.acquire(request, Duration.ofSeconds(90)).orElseThrow();
                    grantOrder.add(grant.fencingToken());
                    Thread.sleep(5);
                    assertThat(backend.release(grant)).isTrue();
                    return null;
                }));
            }
            String parent = new LockPaths(ZookeeperLockBackendBuilder.DEFAULT_ROOT).parent(key);
            await(Duration.ofSeconds(60), () -> childCount(admin, parent) == WAITERS + 1, "every waiter queued");
            await(Duration.ofSeconds(60), () -> dataWatches(sessions, parent) == WAITERS, "every waiter watching");
            assertThat(totalNotifications(backends)).isZero();

            assertThat(holder.release(first)).isTrue();
            for (Future<?> waiter : waiters) {
                waiter.get(90, TimeUnit.SECONDS);
            }

            long notifications = totalNotifications(backends);
            // 51 releases; the last has no successor. A herd would wake every remaining waiter on each release.
            System.out.printf("herd: %d waiters, %d releases with a successor, %d watch notifications (%.2f per release)%n",
                    WAITERS, WAITERS, notifications, notifications / (double) WAITERS);
            assertThat(notifications).as("watch notifications for %d hand-overs", WAITERS).isEqualTo(WAITERS);
            assertThat(grantOrder).hasSize(WAITERS).isSorted().doesNotHaveDuplicates();
            assertThat(grantOrder.get(0)).isGreaterThan(first.fencingToken());
            assertThat(childCount(admin, parent)).isZero();
        } finally {
            pool.shutdownNow();
            for (int i = resources.size() - 1; i >= 0; i--) {
                resources.get(i).close();
            }
        }
    }

    @Test
    void waitersThatGiveUpLeaveNoWatchBehind() throws Exception {
        String key = "herd:given-up";
        try (TestingServer server = ZookeeperTestServers.startServer();
             CuratorFramework holderSession = ZookeeperTestServers.curator(server.getConnectString(), Duration.ofSeconds(10));
             CuratorFramework waiterSession = ZookeeperTestServers.curator(server.getConnectString(), Duration.ofSeconds(10));
             ZookeeperLockBackend holder = ZookeeperLockBackend.builder().client(holderSession).build();
             ZookeeperLockBackend waiter = ZookeeperLockBackend.builder().client(waiterSession).build()) {
            Grant held = holder.tryAcquire(request(key, "holder")).grant().orElseThrow();
            String parent = new LockPaths(ZookeeperLockBackendBuilder.DEFAULT_ROOT).parent(key);
            for (int i = 0; i < 10; i++) {
                assertThat(waiter.acquire(request(key, "waiter-" + i), Duration.ofMillis(30))).isEmpty();
            }
            await(Duration.ofSeconds(10), () -> dataWatches(List.of(waiterSession), parent) == 0,
                    "the waiter's watches on the holder's node to be removed");
            assertThat(holder.release(held)).isTrue();
            assertThat(waiter.watchNotifications()).as("notifications to waiters that had given up").isZero();
        }
    }

    private static LockRequest request(String key, String owner) {
        return new LockRequest(key, owner, Duration.ofSeconds(60), true);
    }

    private static long totalNotifications(List<ZookeeperLockBackend> backends) {
        return backends.stream().mapToLong(ZookeeperLockBackend::watchNotifications).sum();
    }

    /** Data watches the clients registered on lock nodes (Curator also watches /zookeeper/config). */
    private static long dataWatches(List<CuratorFramework> sessions, String parent) {
        long watches = 0;
        for (CuratorFramework session : sessions) {
            try {
                watches += WatchersDebug.getDataWatches(session.getZookeeperClient().getZooKeeper()).stream()
                        .filter(path -> path.startsWith(parent + "/")).count();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        return watches;
    }

    private static int childCount(CuratorFramework admin, String parent) {
        try {
            return ZookeeperTestServers.children(admin, parent).size();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
