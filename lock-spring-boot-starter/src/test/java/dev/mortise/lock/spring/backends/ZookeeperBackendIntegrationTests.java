package dev.mortise.lock.spring.backends;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;

/** The starter on a real (in-process) ZooKeeper server, by {@code mortise.lock.backend=zookeeper}. */
class ZookeeperBackendIntegrationTests extends BackendIntegrationTestSupport {

    private static TestingServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
    }

    @Override
    String backend() {
        return "zookeeper";
    }

    @Override
    String[] connection() {
        return new String[] {"mortise.lock.zookeeper.connect-string=" + server.getConnectString()};
    }
}
