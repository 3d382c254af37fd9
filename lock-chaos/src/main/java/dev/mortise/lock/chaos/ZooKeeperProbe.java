package dev.mortise.lock.chaos;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * What {@link BackendServer} asks ZooKeeper: which ensemble member leads (the 'srvr' four-letter
 * word), and how many lock nodes are left. Thread-safe.
 */
final class ZooKeeperProbe {

    private ZooKeeperProbe() {
    }

    /** The ensemble member whose 'srvr' answer says {@code Mode: leader} (waits up to 10 s for one). */
    static InstanceSpec leader(TestingCluster ensemble) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            for (InstanceSpec spec : ensemble.getInstances()) {
                if (ZooKeeperJvm.fourLetterWord(spec.getPort(), "srvr").contains("Mode: leader")) {
                    return spec;
                }
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no ZooKeeper server says 'Mode: leader' within 10 s (is the 'srvr' "
                + "four-letter word whitelisted? zookeeper.4lw.commands.whitelist)");
    }

    /** Lock nodes (children of each key's node) under the backend's default root path. */
    static long lockNodes(String connectString) throws Exception {
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, new RetryOneTime(100))) {
            client.start();
            if (client.checkExists().forPath("/mortise/locks") == null) {
                return 0;
            }
            long nodes = 0;
            for (String key : client.getChildren().forPath("/mortise/locks")) {
                nodes += client.getChildren().forPath("/mortise/locks/" + key).size();
            }
            return nodes;
        }
    }
}
