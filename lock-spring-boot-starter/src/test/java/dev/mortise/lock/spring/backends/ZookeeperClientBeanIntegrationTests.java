package dev.mortise.lock.spring.backends;

import dev.mortise.lock.spring.LockClients;
import dev.mortise.lock.zookeeper.ZookeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ZooKeeper backend over the application's own {@link CuratorFramework} bean: reused,
 * not duplicated, and left open when the lock clients close.
 */
class ZookeeperClientBeanIntegrationTests extends BackendIntegrationTestSupport {

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
        return new String[0];
    }

    @Override
    ApplicationContextRunner customize(ApplicationContextRunner runner) {
        return runner.withBean("curator", CuratorFramework.class, () -> {
            CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(),
                    new ExponentialBackoffRetry(100, 3));
            client.start();
            return client;
        });
    }

    @Test
    void theApplicationsClientIsReusedAndLeftOpenByTheLocks() {
        runner().run(context -> {
            assertThat(context).hasSingleBean(ZookeeperLockBackend.class).hasSingleBean(CuratorFramework.class);
            assertThat(context.getBean(Inventory.class).reserve("reuse")).isPositive();
            context.getBean(LockClients.class).close();
            assertThat(context.getBean(CuratorFramework.class).getState()).isEqualTo(CuratorFrameworkState.STARTED);
        });
    }
}
