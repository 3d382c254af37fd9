package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.zookeeper.internal.LockPaths;
import dev.mortise.lock.zookeeper.internal.NodeRef;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.mortise.lock.zookeeper.ZookeeperTestServers.packetsReceived;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Mortise costs the server, counted by the server ({@code mntr}'s packets received):
 * an uncontended acquire and release is a create, a listing and a delete — nothing more;
 * a key whose parent the server reaped costs one more round trip (three pipelined requests);
 * renewing many holds is one request, and a node deleted behind the holder's back is still
 * found (with one more request for it), also through a chroot and a Curator namespace.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZookeeperRequestsTest {

    private static final int CYCLES = 50;
    private static final int HOLDS = 300;

    private static TestingServer server;
    private static CuratorFramework admin;

    @BeforeAll
    static void startServer() throws Exception {
        server = ZookeeperTestServers.startServer();
        admin = ZookeeperTestServers.admin(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anUncontendedCycleIsCreateListAndDelete() throws Exception {
        String key = "requests:cycle";
        String parent = new LockPaths(ZookeeperLockBackendBuilder.DEFAULT_ROOT).parent(key);
        // A stray child keeps the key's container from being reaped (and re-created) mid-count.
        admin.create().creatingParentContainersIfNeeded().forPath(parent + "/keep");
        try (LockClient locks = LockClient.builder(backend(server.getConnectString())).build()) {
            locks.acquire(key, Duration.ofSeconds(5)).close();
            long before = packetsReceived(server.getConnectString());
            for (int i = 0; i < CYCLES; i++) {
                locks.acquire(key, Duration.ofSeconds(5)).close();
            }
            long requests = packetsReceived(server.getConnectString()) - before - 1;
            System.out.printf("zookeeper requests per uncontended acquire+release: %.2f%n", requests / (double) CYCLES);
            // A stray heartbeat of another session may fall into the window; a fourth request per cycle may not.
            assertThat(requests).isBetween(3L * CYCLES, 3L * CYCLES + 3);
        } finally {
            admin.delete().forPath(parent + "/keep");
        }
    }

    @Test
    void aKeyWithoutParentCostsOneMoreRoundTripThatCreatesIt() throws Exception {
        try (LockClient locks = LockClient.builder(backend(server.getConnectString())).build()) {
            locks.acquire("requests:fresh:warm", Duration.ofSeconds(5)).close();
            long before = packetsReceived(server.getConnectString());
            for (int i = 0; i < CYCLES; i++) {
                locks.acquire("requests:fresh:" + i, Duration.ofSeconds(5)).close();
            }
            long requests = packetsReceived(server.getConnectString()) - before - 1;
            System.out.printf("zookeeper requests per acquire+release of a new key: %.2f%n", requests / (double) CYCLES);
            // create + list (no parent); parent create + create + list; delete.
            assertThat(requests).isBetween(6L * CYCLES, 6L * CYCLES + 3);
        }
    }

    @Test
    void renewingManyHoldsIsOneRequestAndStillFindsADeletedNode() throws Exception {
        try (ZookeeperLockBackend backend = backend(server.getConnectString())) {
            List<Grant> grants = hold(backend, "requests:renew:");
            assertThat(requestsFor(() -> assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).isEmpty()))
                    .as("requests to renew %d holds", HOLDS).isLessThanOrEqualTo(1 + 1);

            Grant broken = grants.get(HOLDS / 2);
            admin.delete().forPath(broken.<NodeRef>state().path());
            assertThat(requestsFor(() -> assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone())
                    .containsExactly(broken)))
                    .as("one listing plus one exists for the node it left out").isLessThanOrEqualTo(2 + 1);
        }
    }

    @Test
    void renewingHoldsWhoseKeysStartAnywhereIsStillOneRequest() throws Exception {
        // Issue 14, finding 10: keys that differ at their first character (and keys starting with
        // "." or "..") share only the root, which must be asked for as "/mortise/locks", not with a slash.
        String[] firsts = {"a", "b", ".", "..", "/", "é", "锁", "😀", "0", "~"};
        try (ZookeeperLockBackend backend = backend(server.getConnectString())) {
            List<Grant> grants = new ArrayList<>();
            for (int i = 0; i < HOLDS; i++) {
                String key = firsts[i % firsts.length] + "requests:anywhere:" + i;
                grants.add(backend.tryAcquire(new LockRequest(key, "owner-" + i, Duration.ofSeconds(30), true))
                        .grant().orElseThrow());
            }
            assertThat(requestsFor(() -> assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).isEmpty()))
                    .as("requests to renew %d holds with keys starting anywhere", HOLDS).isLessThanOrEqualTo(1 + 1);
            for (Grant grant : grants) {
                assertThat(backend.release(grant)).isTrue();
            }
        }
    }

    @Test
    void renewalListsTheRightNodesUnderAChrootAndANamespace() throws Exception {
        admin.create().creatingParentsIfNeeded().forPath("/app");
        try (CuratorFramework client = CuratorFrameworkFactory.builder().connectString(server.getConnectString() + "/app")
                .namespace("ns").sessionTimeoutMs(10_000).retryPolicy(new RetryOneTime(100)).build()) {
            client.start();
            assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
            try (ZookeeperLockBackend backend = ZookeeperLockBackend.builder().client(client).build()) {
                List<Grant> grants = hold(backend, "requests:chroot:");
                // Were the listing's paths misread, every hold would be checked once more with exists.
                assertThat(requestsFor(() -> assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).isEmpty()))
                        .isLessThanOrEqualTo(1 + 1);

                Grant broken = grants.get(0);
                admin.delete().forPath("/app/ns" + broken.<NodeRef>state().path());
                assertThat(requestsFor(() -> assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone())
                        .containsExactly(broken))).isLessThanOrEqualTo(2 + 1);
                for (Grant grant : grants.subList(1, grants.size())) {
                    assertThat(backend.release(grant)).isTrue();
                }
            }
        }
    }

    private static ZookeeperLockBackend backend(String connectString) {
        return ZookeeperLockBackend.builder().connectString(connectString).sessionTimeout(Duration.ofSeconds(10))
                .operationTimeout(Duration.ofSeconds(10)).build();
    }

    private static List<Grant> hold(ZookeeperLockBackend backend, String prefix) {
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < HOLDS; i++) {
            grants.add(backend.tryAcquire(new LockRequest(prefix + i, "owner-" + i, Duration.ofSeconds(30), true))
                    .grant().orElseThrow());
        }
        return grants;
    }

    private interface Step {
        void run() throws Exception;
    }

    /** Requests the server received while {@code step} ran. */
    private static long requestsFor(Step step) throws Exception {
        long before = packetsReceived(server.getConnectString());
        step.run();
        long requests = packetsReceived(server.getConnectString()) - before - 1;
        System.out.printf("zookeeper requests: %d%n", requests);
        return requests;
    }
}
