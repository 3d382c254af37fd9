package dev.mortise.lock.spring.backends;

import dev.mortise.lock.tck.server.FreePorts;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;

import java.io.IOException;

/** ZooKeeper down at start-up, then started on its port. */
class ZookeeperUnreachableServerTests extends UnreachableServerTestSupport {

    private final int port = FreePorts.next();
    private TestingServer server;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    @Override
    String backend() {
        return "zookeeper";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.zookeeper.connect-string=127.0.0.1:" + port,
                "mortise.lock.zookeeper.operation-timeout=1s"};
    }

    @Override
    void startServer() throws Exception {
        server = new TestingServer(port, true);
    }
}
