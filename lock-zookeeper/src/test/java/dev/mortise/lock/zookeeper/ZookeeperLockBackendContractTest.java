package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockLease;
import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.LockBackendContractSuite;
import dev.mortise.lock.zookeeper.internal.LockPaths;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.List;

/** The whole contract against a real (in-process) ZooKeeper server, every client with its own session. */
class ZookeeperLockBackendContractTest extends LockBackendContractSuite {

    private static TestingServer server;
    private static CuratorFramework admin;
    private static final LockPaths PATHS = new LockPaths(ZookeeperLockBackendBuilder.DEFAULT_ROOT);

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

    @Override
    protected LockBackend newBackend() {
        return ZookeeperLockBackend.builder().connectString(server.getConnectString())
                .sessionTimeout(Duration.ofSeconds(10)).operationTimeout(Duration.ofSeconds(5)).build();
    }

    @Override
    protected int wirePort() {
        return server.getPort();
    }

    /**
     * As {@link #newBackend()}, through {@code port}, with a 3 s session: a silenced client's
     * session then ends (and its nodes with it) within the wire suite's wait.
     */
    @Override
    protected LockBackend newBackendAt(int port) {
        return ZookeeperLockBackend.builder().connectString("127.0.0.1:" + port)
                .sessionTimeout(Duration.ofSeconds(3)).operationTimeout(Duration.ofSeconds(5)).build();
    }

    /**
     * Deletes the holder's node, as an operator or a bug on the server would: the node whose
     * czxid is the lease's token (with several readers, the lowest node may be another's).
     */
    @Override
    protected void breakHold(LockLease lease) throws Exception {
        String parent = PATHS.parent(lease.key());
        List<String> queue = LockPaths.sortedLockNodes(ZookeeperTestServers.children(admin, parent));
        for (String node : queue) {
            Stat stat = admin.checkExists().forPath(parent + "/" + node);
            if (stat != null && stat.getCzxid() == lease.fencingToken()) {
                admin.delete().forPath(parent + "/" + node);
                return;
            }
        }
        throw new AssertionError("no node of lock '" + lease.key() + "' has the lease's token " + lease.fencingToken()
                + " under " + parent + ": " + queue);
    }

    /** Permit nodes are admitted in sequence order (PermitQueue): a waiter for many is never overtaken. */
    @Override
    protected boolean fairPermits() {
        return true;
    }

    @Override
    protected LockBackend newUnreachableBackend(Duration operationTimeout) throws Exception {
        return ZookeeperLockBackend.builder().connectString("127.0.0.1:" + ZookeeperTestServers.closedPort())
                .connectionTimeout(operationTimeout).operationTimeout(operationTimeout).build();
    }

    @Override
    protected int residueOnServer(String key) throws Exception {
        return ZookeeperTestServers.children(admin, PATHS.parent(key)).size();
    }

    /** The wait-record nodes of {@code holderIds} under {@code <root>/#waits}, expired ones a read has not yet deleted included. */
    @Override
    protected int waitRecordsOnServer(java.util.Collection<String> holderIds) throws Exception {
        int count = 0;
        for (String id : holderIds) {
            count += admin.checkExists().forPath(PATHS.waitRecord(id)) == null ? 0 : 1;
        }
        return count;
    }

    /** Faults below the backend ({@link WireFaultContract}): A through a proxy to {@link #wirePort()}, B direct. */
    @org.junit.jupiter.api.Nested
    class WireFaults extends dev.mortise.lock.tck.WireFaultContract {
        WireFaults() {
            super(ZookeeperLockBackendContractTest.this);
        }
    }
}
