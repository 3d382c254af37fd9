package dev.mortise.lock.zookeeper;

import dev.mortise.lock.spi.LockBackend;
import dev.mortise.lock.tck.CrossProcessDeadlockContract;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

/** Deadlocks between JVMs on one real ZooKeeper server, each owner with a session of its own. */
class ZookeeperCrossProcessDeadlockTest extends CrossProcessDeadlockContract {

    private static TestingServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = ZookeeperTestServers.startServer();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    /** What each owner process builds its backend with: ZooKeeper at {@code mortise.party.zookeeper}. */
    public static final class Parties implements Supplier<LockBackend> {
        @Override
        public LockBackend get() {
            return ZookeeperLockBackend.builder().connectString(System.getProperty("mortise.party.zookeeper"))
                    .sessionTimeout(Duration.ofSeconds(10)).operationTimeout(Duration.ofSeconds(5)).build();
        }
    }

    @Override
    protected Class<? extends Supplier<LockBackend>> factory() {
        return Parties.class;
    }

    @Override
    protected Map<String, String> factoryProperties() {
        return Map.of("mortise.party.zookeeper", server.getConnectString());
    }
}
