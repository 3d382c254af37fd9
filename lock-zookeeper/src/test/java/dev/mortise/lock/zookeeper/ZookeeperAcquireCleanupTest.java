package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * An acquire that fails after its create went out leaves no node behind (contract 7),
 * and the containers sent with a create only matter when the create itself failed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZookeeperAcquireCleanupTest {

    /**
     * The root's parent lets everyone read but only its creator create: a fresh backend's
     * first acquire of a new key sends the whole chain of containers with its create, and
     * the root's own (already existing) container answers NOAUTH, while the key's parent and
     * the lock node are created. That answer used to fail the acquire before the create's
     * answer was read, so nothing deleted the node, which then held the key for as long as
     * the session lived.
     */
    @Test
    void aRefusedAncestorContainerNeitherFailsTheAcquireNorOrphansTheNode() throws Exception {
        byte[] credentials = "admin:s3cret".getBytes(StandardCharsets.UTF_8);
        try (TestingServer server = ZookeeperTestServers.startServer();
             CuratorFramework admin = CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                     .authorization("digest", credentials).retryPolicy(new RetryOneTime(100)).build()) {
            admin.start();
            assertThat(admin.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
            List<ACL> creatorCreatesOthersRead = new ArrayList<>(ZooDefs.Ids.CREATOR_ALL_ACL);
            creatorCreatesOthersRead.addAll(ZooDefs.Ids.READ_ACL_UNSAFE);
            admin.create().withMode(CreateMode.PERSISTENT).withACL(creatorCreatesOthersRead).forPath("/guarded");
            admin.create().withMode(CreateMode.PERSISTENT).withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath("/guarded/locks");

            try (ZookeeperLockBackend backend = ZookeeperLockBackend.builder().connectString(server.getConnectString())
                    .rootPath("/guarded/locks").operationTimeout(Duration.ofSeconds(5)).build()) {
                String key = "cleanup:ancestor-refused";
                String parent = backend.lockPath(key);
                Grant grant;
                try {
                    grant = backend.acquire(new LockRequest(key, "owner", Duration.ofSeconds(30), true),
                            Duration.ofSeconds(5)).orElseThrow();
                } catch (LockBackendException e) {
                    fail("acquire failed (" + e.getMessage() + "); nodes left under " + parent + " while the session "
                            + "lives: " + ZookeeperTestServers.children(admin, parent));
                    return;
                }
                assertThat(ZookeeperTestServers.children(admin, parent)).hasSize(1);
                assertThat(backend.release(grant)).isTrue();
                assertThat(ZookeeperTestServers.children(admin, parent)).isEmpty();
            }
        }
    }
}
