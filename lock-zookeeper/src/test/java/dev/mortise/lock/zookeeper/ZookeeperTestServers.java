package dev.mortise.lock.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

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

    /**
     * A server with the given tick: it grants session timeouts between 2 and 20 ticks, so
     * session tests can use short sessions.
     */
    static TestingServer startServer(int tickMillis) throws Exception {
        return new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, tickMillis, -1), true);
    }

    /** A started client with its own session, connected. */
    static CuratorFramework curator(String connectString, Duration session) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, (int) session.toMillis(), 3_000,
                new RetryOneTime(100));
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("client could not connect to " + connectString);
        }
        return client;
    }

    static void await(Duration max, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Timed out after " + max + " waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Every lock or waiter node under the root, over all keys. */
    static int lockNodesUnder(CuratorFramework admin, String root) throws Exception {
        int count = 0;
        for (String parent : children(admin, root)) {
            count += children(admin, root + "/" + parent).size();
        }
        return count;
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

    /**
     * Requests the server has received so far over all connections ({@code mntr}'s
     * {@code zk_packets_received}); each call adds one (the {@code mntr} command itself).
     */
    static long packetsReceived(String connectString) throws IOException {
        String[] hostPort = connectString.split(",")[0].split("/")[0].split(":");
        try (Socket socket = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("mntr".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String text = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            for (String line : text.split("\n")) {
                if (line.startsWith("zk_packets_received")) {
                    return Long.parseLong(line.split("\\s+")[1].trim());
                }
            }
            throw new IllegalStateException("no zk_packets_received in the server's mntr output: " + text);
        }
    }

    /** A loopback port nothing listens on. */
    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
