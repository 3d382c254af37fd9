package dev.mortise.lock.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;

/** Shared test plumbing: an in-process ZooKeeper, an admin client, and looks at the lock tree. */
final class ZookeeperTestServers {

    static {
        // Reap empty container nodes (lock parents) every half second instead of every minute.
        System.setProperty("znode.container.checkIntervalMs", "500");
    }

    private ZookeeperTestServers() {
    }

    static TestingServer startServer() throws Exception {
        return new TestingServer(true);
    }

    static CuratorFramework admin(String connectString) throws InterruptedException {
        CuratorFramework admin = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000, new RetryOneTime(100));
        admin.start();
        if (!admin.blockUntilConnected(30, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException("admin client could not connect to " + connectString);
        }
        return admin;
    }

    /** Lock and waiter nodes under {@code parent}; empty if the parent does not exist. */
    static List<String> children(CuratorFramework admin, String parent) throws Exception {
        try {
            return admin.getChildren().forPath(parent);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** A loopback port nothing listens on. */
    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
