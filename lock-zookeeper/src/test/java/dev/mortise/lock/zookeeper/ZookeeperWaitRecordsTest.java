package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.spi.WaitRecords;
import dev.mortise.lock.zookeeper.internal.LockPaths;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the wait-record contract cannot see on ZooKeeper: records are ephemeral nodes of the
 * writer's session under a container the server reaps, a live writer's record that is not
 * rewritten is expired by the reader on the server's clock (and deleted by it), the root path
 * separates records, and failures while the ensemble is away.
 */
@Tag("deadlock")
class ZookeeperWaitRecordsTest {

    private static final String ROOT = "/wait-records/locks";
    private static final LockPaths PATHS = new LockPaths(ROOT);

    private static TestingServer server;
    private static CuratorFramework admin;
    private final List<LockBackend> backends = new ArrayList<>();

    @BeforeAll
    static void startServer() throws Exception {
        server = ZookeeperTestServers.startServer();
        admin = ZookeeperTestServers.admin(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        admin.close();
        server.close();
    }

    @AfterEach
    void closeBackends() {
        backends.forEach(LockBackend::close);
    }

    private ZookeeperLockBackend backend(String root) {
        ZookeeperLockBackend backend = ZookeeperLockBackend.builder().connectString(server.getConnectString())
                .rootPath(root).operationTimeout(Duration.ofSeconds(5)).build();
        backends.add(backend);
        return backend;
    }

    private WaitRecords store() {
        return backend(ROOT).waitRecords().orElseThrow();
    }

    private static String holderId() {
        return String.format("%016x", ThreadLocalRandom.current().nextLong());
    }

    private static boolean exists(String path) {
        try {
            return admin.checkExists().forPath(path) != null;
        } catch (Exception e) {
            throw new AssertionError("exists " + path + " failed", e);
        }
    }

    @Test
    void recordsAreEphemeralNodesOfTheWriterUnderAContainerTheServerReaps() throws Exception {
        ZookeeperLockBackend writer = backend(ROOT);
        List<String> ids = List.of(holderId(), holderId());
        writer.waitRecords().orElseThrow().publish(ids, "n1", "waits", Duration.ofSeconds(30));
        long session = admin.checkExists().forPath(PATHS.waitRecord(ids.get(0))).getEphemeralOwner();
        assertThat(session).as("an ephemeral node of a session").isNotZero();
        assertThat(admin.checkExists().forPath(PATHS.waitRecord(ids.get(1))).getEphemeralOwner()).isEqualTo(session);
        writer.close(); // its session ends, and every record with it, whatever their TTL
        assertThat(store().read(ids)).isEmpty();
        // a container (ZooKeeper shows clients no mark of it in the stat): the server reaps it once empty
        ZookeeperTestServers.await(Duration.ofSeconds(30), () -> !exists(PATHS.waitRecords()),
                "the server to reap the empty container");
    }

    @Test
    void aLiveWritersRecordNotRewrittenIsExpiredOnTheServersClockAndDeletedByTheRead() throws Exception {
        WaitRecords writer = store();
        WaitRecords reader = store();
        String stale = holderId();
        String fresh = holderId();
        writer.publish(List.of(stale), "n2", "stale", Duration.ofMillis(300));
        writer.publish(List.of(fresh), "n3", "fresh", Duration.ofSeconds(60));
        Stat written = admin.checkExists().forPath(PATHS.waitRecord(stale));
        ZookeeperTestServers.await(Duration.ofSeconds(30), () -> !reader.read(List.of(stale, fresh)).containsKey(stale),
                "the reader to find the record expired");
        assertThat(exists(PATHS.waitRecord(stale))).as("deleted by the read that found it expired").isFalse();
        Stat stamp = admin.checkExists().forPath(PATHS.waitRecords());
        assertThat(stamp.getMtime() - written.getMtime()).as("on the server's clock").isGreaterThanOrEqualTo(300);
        assertThat(reader.read(List.of(fresh))).containsExactly(Map.entry(fresh, "fresh"));
        writer.publish(List.of(stale), "n2", "again", Duration.ofSeconds(60));
        assertThat(reader.read(List.of(stale))).as("the writer's session still writes").containsEntry(stale, "again");
        writer.remove(List.of(stale), "n2");
        writer.remove(List.of(fresh), "n3");
    }

    @Test
    void aNodeThatIsNoRecordIsNeitherReadNorRemoved() throws Exception {
        String id = holderId();
        admin.create().creatingParentContainersIfNeeded().forPath(PATHS.waitRecord(id),
                "not a record".getBytes(StandardCharsets.UTF_8));
        WaitRecords store = store();
        assertThat(store.read(List.of(id))).isEmpty();
        store.remove(List.of(id), "n4");
        assertThat(exists(PATHS.waitRecord(id))).isTrue();
        admin.delete().forPath(PATHS.waitRecord(id));
    }

    @Test
    void theRootPathSeparatesRecords() {
        WaitRecords ours = store();
        WaitRecords theirs = backend("/another-app/locks").waitRecords().orElseThrow();
        String id = holderId();
        ours.publish(List.of(id), "n5", "ours", Duration.ofSeconds(30));
        assertThat(theirs.read(List.of(id))).isEmpty();
        theirs.remove(List.of(id), "n5");
        assertThat(ours.read(List.of(id))).containsExactly(Map.entry(id, "ours"));
        ours.remove(List.of(id), "n5");
    }

    @Test
    void everyCallFailsAsAZookeeperBackendErrorWhileTheEnsembleIsAway() throws Exception {
        Duration timeout = Duration.ofMillis(500);
        LockBackend away = ZookeeperLockBackend.builder().connectString("127.0.0.1:" + ZookeeperTestServers.closedPort())
                .connectionTimeout(timeout).operationTimeout(timeout).build();
        backends.add(away);
        WaitRecords store = away.waitRecords().orElseThrow();
        List<String> ids = List.of(holderId());
        assertThatThrownBy(() -> store.publish(ids, "n6", "waits", Duration.ofSeconds(2)))
                .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("zookeeper"));
        assertThatThrownBy(() -> store.read(ids))
                .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("zookeeper"));
        assertThatThrownBy(() -> store.remove(ids, "n6"))
                .isInstanceOfSatisfying(LockBackendException.class, e -> assertThat(e.backend()).isEqualTo("zookeeper"));
    }
}
