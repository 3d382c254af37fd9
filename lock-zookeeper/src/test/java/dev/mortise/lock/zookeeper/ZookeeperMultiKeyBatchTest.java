package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import dev.mortise.lock.LockMode;
import dev.mortise.lock.LockSpec;
import dev.mortise.lock.MultiLease;
import dev.mortise.lock.MultiLockSpec;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.KeyState;
import dev.mortise.lock.spi.LockRequest;
import dev.mortise.lock.zookeeper.internal.LockPaths;
import dev.mortise.lock.zookeeper.internal.NodeRef;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
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

import static dev.mortise.lock.zookeeper.ZookeeperTestServers.children;
import static dev.mortise.lock.zookeeper.ZookeeperTestServers.packetsReceived;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LockClient#acquireAll} on a real ZooKeeper server: the requests it costs, counted by
 * the server ({@code mntr}'s packets received), all or nothing when a part is busy (nothing of
 * the batch left in any queue, the holder untouched), mixed modes under the queue's shared-mode
 * rule, nesting through the ordered path, and batch grants released, renewed and expired as
 * single ones. Counts allow a stray heartbeat or two; every lease is long or explicit.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZookeeperMultiKeyBatchTest {

    private static final String ROOT = ZookeeperLockBackendBuilder.DEFAULT_ROOT;
    /** Heartbeats of the test's other sessions that may fall into a count. */
    private static final long SLACK = 2;

    private static TestingServer server;
    private static CuratorFramework admin;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final String prefix = "batch:" + UUID.randomUUID() + ":";

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

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private ZookeeperLockBackend backend() {
        ZookeeperLockBackend backend = ZookeeperLockBackend.builder().connectString(server.getConnectString())
                .sessionTimeout(Duration.ofSeconds(10)).operationTimeout(Duration.ofSeconds(10)).build();
        closeables.add(backend);
        return backend;
    }

    private LockClient client() {
        LockClient client = LockClient.builder(backend()).defaultLease(Duration.ofSeconds(30)).build();
        closeables.add(client);
        client.tryAcquire(prefix + "warm-up").orElseThrow().close(); // connected
        return client;
    }

    private List<String> keys(int n) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(prefix + i);
        }
        return keys;
    }

    private static String parent(String key) {
        return new LockPaths(ROOT).parent(key);
    }

    /** A stray child keeps a key's container from being reaped (and re-created) mid-count. */
    private void keepParents(List<String> keys) throws Exception {
        for (String key : keys) {
            String keep = parent(key) + "/keep";
            admin.create().creatingParentContainersIfNeeded().forPath(keep);
            closeables.add(() -> admin.delete().quietly().forPath(keep));
        }
    }

    /** The lock and waiter nodes in {@code key}'s queue (stray nodes aside). */
    private static List<String> queue(String key) throws Exception {
        return LockPaths.sortedLockNodes(children(admin, parent(key)));
    }

    private static long requestsSince(long before) throws Exception {
        return packetsReceived(server.getConnectString()) - before - 1; // the mntr itself
    }

    @Test
    void anUncontendedAcquireAllOfManyKeysIsOneMultiAndOneRead() throws Exception {
        LockClient locks = client();
        List<String> keys = keys(8);
        keepParents(keys);
        long before = packetsReceived(server.getConnectString());
        try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys).lease(Duration.ofSeconds(30))
                .waitFor(Duration.ofSeconds(5)))) {
            long requests = requestsSince(before);
            System.out.printf("zookeeper requests for an uncontended 8-key acquireAll: %d%n", requests);
            assertThat(requests).as("requests for 8 keys: one multi creating every node, one multi listing "
                    + "every queue").isBetween(2L, 2 + SLACK);
            for (String key : keys) {
                assertThat(queue(key)).as(key).hasSize(1);
                assertThat(all.fencingToken(key)).isPositive();
            }
        }
        for (String key : keys) {
            assertThat(queue(key)).as("released: " + key).isEmpty();
        }
    }

    @Test
    void keysWhoseParentsWereReapedCostOneMoreRoundTripThatCreatesThem() throws Exception {
        LockClient locks = client();
        List<String> keys = keys(4);
        long before = packetsReceived(server.getConnectString());
        try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys).lease(Duration.ofSeconds(30)))) {
            long requests = requestsSince(before);
            System.out.printf("zookeeper requests for a 4-key acquireAll of new keys: %d%n", requests);
            // creates (NONODE) + listing; 4 parent creates + creates + listing
            assertThat(requests).isBetween(2L + 4 + 2, 2 + 4 + 2 + SLACK);
            assertThat(all.isValid()).isTrue();
        }
    }

    @Test
    void keysOfEveryShapeAreEncodedAsASingleAcquireEncodesThem() throws Exception {
        ZookeeperLockBackend backend = backend();
        List<String> keys = List.of(".", "..", "/" + prefix, "%2E" + prefix, "é锁😀" + prefix, " " + prefix);
        List<LockRequest> requests = new ArrayList<>();
        for (String key : keys) {
            requests.add(new LockRequest(key, "owner:" + key, Duration.ofSeconds(30), true));
        }
        List<Grant> grants = backend.tryAcquireAll(requests);
        assertThat(grants).hasSize(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            Grant grant = grants.get(i);
            assertThat(grant.key()).isEqualTo(keys.get(i));
            assertThat(grant.<NodeRef>state().path()).startsWith(backend.lockPath(keys.get(i)) + "/");
            KeyState state = backend.inspect(keys.get(i));
            assertThat(state.holders()).singleElement().satisfies(holder -> {
                assertThat(holder.owner()).isEqualTo("owner:" + grant.key());
                assertThat(holder.fencingToken()).hasValue(grant.fencingToken());
            });
            // a single acquire of the same key finds it taken
            assertThat(backend.tryAcquire(new LockRequest(keys.get(i), "other", Duration.ofSeconds(30), true))
                    .grant()).isEmpty();
        }
        for (Grant grant : grants) {
            assertThat(backend.release(grant)).isTrue();
        }
        for (String key : keys) {
            assertThat(backend.inspect(key).held()).isFalse();
        }
    }

    @Test
    void aBatchThroughAChrootAndACuratorNamespaceCreatesWhereASingleAcquireDoes() throws Exception {
        String chroot = "/chroot-" + UUID.randomUUID();
        admin.create().forPath(chroot);
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(server.getConnectString() + chroot)
                .namespace("ns").sessionTimeoutMs(10_000).retryPolicy(new RetryOneTime(100)).build();
        closeables.add(client);
        client.start();
        assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
        ZookeeperLockBackend backend = ZookeeperLockBackend.builder().client(client).build();
        closeables.add(backend);
        List<String> keys = keys(3);
        List<LockRequest> requests = new ArrayList<>();
        for (String key : keys) {
            requests.add(new LockRequest(key, "chroot:" + key, Duration.ofSeconds(30), true,
                    key.endsWith("1") ? LockMode.SHARED : LockMode.EXCLUSIVE));
        }
        // new keys (parents created on the way), then again with the parents in place
        for (int round = 0; round < 2; round++) {
            List<Grant> grants = backend.tryAcquireAll(requests);
            assertThat(grants).hasSize(3);
            for (Grant grant : grants) {
                String onServer = chroot + "/ns" + grant.<NodeRef>state().path();
                assertThat(admin.checkExists().forPath(onServer)).as(onServer).isNotNull()
                        .extracting(org.apache.zookeeper.data.Stat::getCzxid).isEqualTo(grant.fencingToken());
                assertThat(backend.inspect(grant.key()).holders()).singleElement()
                        .extracting(KeyState.Holder::owner).isEqualTo(grant.owner());
            }
            assertThat(backend.tryAcquireAll(requests)).as("taken: refused, nothing left").isEmpty();
            for (String key : keys) {
                assertThat(LockPaths.sortedLockNodes(children(admin, chroot + "/ns" + parent(key)))).hasSize(1);
            }
            assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).isEmpty();
            for (Grant grant : grants) {
                assertThat(backend.release(grant)).isTrue();
            }
        }
    }

    @Test
    void sharedAndExclusivePartsGoInTheSameMultiUnderTheQueuesRule() throws Exception {
        LockClient locks = client();
        LockClient other = client();
        LockClient third = client();
        String x = prefix + "x";
        String r = prefix + "r";
        keepParents(List.of(x, r));
        try (LockLease reader = other.acquire(LockSpec.of(r).shared().lease(Duration.ofSeconds(30)))) {
            long before = packetsReceived(server.getConnectString());
            try (MultiLease all = locks.acquireAll(MultiLockSpec.of(List.of(x)).shared(r)
                    .lease(Duration.ofSeconds(30)))) {
                assertThat(requestsSince(before)).as("a shared part beside another reader").isBetween(2L, 2 + SLACK);
                assertThat(all.fencingToken(r)).isGreaterThan(reader.fencingToken());
                assertThat(third.tryAcquire(x)).isEmpty();
                assertThat(third.tryAcquire(r)).as("a writer waits for the readers").isEmpty();
                try (LockLease another = third.acquire(LockSpec.of(r).shared().lease(Duration.ofSeconds(30)))) {
                    assertThat(another.fencingToken()).isGreaterThan(all.fencingToken(r));
                }
            }
        }
        try (LockLease writer = other.acquire(LockSpec.of(r).lease(Duration.ofSeconds(30)))) {
            assertThat(writer.isValid()).isTrue();
        }
    }

    @Test
    void aWaitingWriterKeepsABatchsSharedPartOut() throws Exception {
        ZookeeperLockBackend backend = backend();
        LockClient readers = client();
        LockClient writers = client();
        String x = prefix + "x";
        String r = prefix + "r";
        try (LockLease reader = readers.acquire(LockSpec.of(r).shared().lease(Duration.ofSeconds(30)))) {
            CompletableFuture<LockLease> writer = CompletableFuture.supplyAsync(
                    () -> writers.acquire(LockSpec.of(r).lease(Duration.ofSeconds(30)).waitFor(Duration.ofSeconds(60))));
            ZookeeperTestServers.await(Duration.ofSeconds(30), () -> {
                try {
                    return queue(r).size() == 2;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "the writer queued behind the reader");
            List<Grant> refused = backend.tryAcquireAll(List.of(
                    new LockRequest(x, "batch:x", Duration.ofSeconds(30), true),
                    new LockRequest(r, "batch:r", Duration.ofSeconds(30), true, LockMode.SHARED)));
            assertThat(refused).as("a reader after a waiting writer waits for it").isEmpty();
            assertThat(queue(x)).as("nothing of the batch left").isEmpty();
            assertThat(queue(r)).hasSize(2);
            reader.close();
            try (LockLease w = writer.get(60, TimeUnit.SECONDS)) {
                assertThat(w.isValid()).isTrue();
            }
        }
    }

    @Test
    void aBusyPartLeavesNothingOnTheServerAndTheWaitThenGetsEveryKey() throws Exception {
        LockClient locks = client();
        LockClient other = client();
        List<String> keys = keys(4);
        keepParents(keys);
        String busy = keys.get(2);
        LockLease holder = other.acquire(LockSpec.of(busy).lease(Duration.ofSeconds(30)));
        List<String> holderQueue = queue(busy);

        long before = packetsReceived(server.getConnectString());
        assertThat(locks.tryAcquireAll(keys)).isEmpty();
        long requests = requestsSince(before);
        System.out.printf("zookeeper requests for a refused 4-key tryAcquireAll: %d%n", requests);
        // The refused batch: creates, listing, one delete multi. Then the ordered path: a look, a create
        // and a listing for each key before the busy one, a look at the busy one, a delete per release.
        assertThat(requests).isBetween(3L + 3 + 3 + 1 + 2, 3 + 3 + 3 + 1 + 2 + SLACK);
        for (String key : keys) {
            if (!key.equals(busy)) {
                assertThat(queue(key)).as("nothing of the batch left: " + key).isEmpty();
            }
        }
        assertThat(queue(busy)).as("the busy holder is untouched").isEqualTo(holderQueue);
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
                assertThat(queue(key)).as(key).hasSize(1);
            }
        }
    }

    @Test
    void aPartAlreadyHeldByTheCallersOwnerIsNestedThroughTheOrderedPath() throws Exception {
        LockClient locks = client();
        List<String> keys = keys(3);
        keepParents(keys);
        try (LockLease outer = locks.acquire(LockSpec.of(keys.get(1)).lease(Duration.ofSeconds(30)))) {
            List<String> outerQueue = queue(keys.get(1));
            long before = packetsReceived(server.getConnectString());
            try (MultiLease all = locks.acquireAll(MultiLockSpec.of(keys).lease(Duration.ofSeconds(30)))) {
                long requests = requestsSince(before);
                System.out.printf("zookeeper requests for a 3-key acquireAll nesting one key: %d%n", requests);
                // no wait: each part is a single tryAcquire (a look, then a create and a listing)
                assertThat(requests).as("the two other keys, one by one").isBetween(6L, 6 + SLACK);
                assertThat(all.fencingToken(keys.get(1))).isEqualTo(outer.fencingToken());
                assertThat(queue(keys.get(1))).isEqualTo(outerQueue);
            }
            assertThat(queue(keys.get(1))).as("the outer lease still holds its key").isEqualTo(outerQueue);
            assertThat(outer.isValid()).isTrue();
        }
        assertThat(queue(keys.get(1))).isEmpty();
    }

    @Test
    void batchGrantsAreRenewedReleasedAndExpireAsSingleOnes() throws Exception {
        ZookeeperLockBackend backend = backend();
        List<String> keys = keys(3);
        List<LockRequest> renewed = new ArrayList<>();
        for (String key : keys) {
            renewed.add(new LockRequest(key, "renewed:" + key, Duration.ofSeconds(30), true));
        }
        long sentAfter = System.nanoTime();
        List<Grant> grants = backend.tryAcquireAll(renewed);
        long answeredBefore = System.nanoTime();
        assertThat(grants).hasSize(3);
        for (int i = 0; i < grants.size(); i++) {
            Grant grant = grants.get(i);
            assertThat(grant.owner()).isEqualTo("renewed:" + keys.get(i));
            assertThat(grant.requestedAtNanos()).isBetween(sentAfter, answeredBefore);
            assertThat(grant.fencingToken()).isEqualTo(grant.<NodeRef>state().czxid()).isPositive();
        }
        assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).isEmpty();
        assertThat(backend.renew(grants.get(0), Duration.ofSeconds(30))).isPresent();
        admin.delete().forPath(grants.get(1).<NodeRef>state().path());
        assertThat(backend.renewAll(grants, Duration.ofSeconds(30)).gone()).containsExactly(grants.get(1));
        assertThat(backend.release(grants.get(0))).isTrue();
        assertThat(backend.release(grants.get(1))).as("already gone").isFalse();
        assertThat(backend.release(grants.get(2))).isTrue();

        // An explicit lease ends on the server when it runs out, as a single acquire's does.
        List<LockRequest> explicit = new ArrayList<>();
        for (String key : keys) {
            explicit.add(new LockRequest(key, "explicit:" + key, Duration.ofMillis(500), false));
        }
        List<Grant> expiring = backend.tryAcquireAll(explicit);
        assertThat(expiring).hasSize(3);
        ZookeeperTestServers.await(Duration.ofSeconds(30), () -> {
            try {
                for (String key : keys) {
                    if (!queue(key).isEmpty()) {
                        return false;
                    }
                }
                return true;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "every explicit batch hold deleted after its lease");
        assertThat(backend.tryAcquireAll(renewed)).as("the keys are free again").hasSize(3)
                .allSatisfy(grant -> assertThat(backend.release(grant)).isTrue());
    }

    @Test
    void aBatchWhoseAnswerWasLostLeavesNothingOnceTheConnectionIsBack() throws Exception {
        FreezableProxy proxy = new FreezableProxy(server.getPort());
        closeables.add(proxy);
        CuratorFramework curator = ZookeeperTestServers.curator(proxy.connectString(), Duration.ofSeconds(6));
        closeables.add(curator);
        ZookeeperLockBackend backend = ZookeeperLockBackend.builder().client(curator)
                .operationTimeout(Duration.ofSeconds(1)).build();
        closeables.add(backend);
        List<String> keys = keys(3);
        keepParents(keys);
        List<LockRequest> requests = new ArrayList<>();
        for (String key : keys) {
            requests.add(new LockRequest(key, "lost:" + key, Duration.ofSeconds(30), true));
        }
        long session = curator.getZookeeperClient().getZooKeeper().getSessionId();

        proxy.muteReplies();
        assertThatThrownBy(() -> backend.tryAcquireAll(requests)).isInstanceOf(LockBackendException.class)
                .hasMessageContaining(keys.get(0));
        for (String key : keys) {
            List<String> queue = queue(key);
            assertThat(queue).as("the creates were applied, their answer lost: " + key).hasSize(1);
            assertThat(admin.checkExists().forPath(parent(key) + "/" + queue.get(0)).getEphemeralOwner())
                    .isEqualTo(session);
        }
        proxy.unmuteReplies();
        ZookeeperTestServers.await(Duration.ofSeconds(60), () -> {
            try {
                for (String key : keys) {
                    if (!queue(key).isEmpty()) {
                        return false;
                    }
                }
                return true;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "the lost batch's nodes deleted once the connection was back");
        assertThat(curator.getZookeeperClient().getZooKeeper().getSessionId())
                .as("deleted by the backend, not by the session's end").isEqualTo(session);
        assertThat(backend.tryAcquireAll(requests)).hasSize(3)
                .allSatisfy(grant -> assertThat(backend.release(grant)).isTrue());
    }
}
