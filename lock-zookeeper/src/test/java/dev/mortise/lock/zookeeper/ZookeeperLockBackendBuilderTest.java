package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.BackendGuarantees;
import dev.mortise.lock.spi.LockRequest;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The builder validates every argument and says how to fix it. */
class ZookeeperLockBackendBuilderTest {

    @Test
    void rejectsBadArguments() {
        ZookeeperLockBackendBuilder builder = ZookeeperLockBackend.builder();
        assertThatThrownBy(() -> builder.connectString(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectString");
        assertThatThrownBy(() -> builder.client(null)).isInstanceOf(IllegalArgumentException.class);
        for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(10)}) {
            assertThatThrownBy(() -> builder.operationTimeout(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("operationTimeout");
            assertThatThrownBy(() -> builder.sessionTimeout(bad)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> builder.connectionTimeout(bad)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> builder.authorization(null, new byte[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.aclProvider(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.zkClientConfig(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.rootPath("/")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void needsExactlyOneOfConnectStringAndClient() {
        assertThatThrownBy(() -> ZookeeperLockBackend.builder().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exactly one");
        try (CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(10))) {
            assertThatThrownBy(() -> ZookeeperLockBackend.builder().connectString("127.0.0.1:1").client(client).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exactly one");
            assertThatThrownBy(() -> ZookeeperLockBackend.builder().client(client).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("start()");
            client.start();
            assertThatThrownBy(() -> ZookeeperLockBackend.builder().client(client)
                    .sessionTimeout(Duration.ofSeconds(5)).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CuratorFramework you supply");
        }
    }

    @Test
    void anUnreachableEnsembleFailsWithinTheOperationTimeout() throws Exception {
        try (ZookeeperLockBackend backend = ZookeeperLockBackend.builder()
                .connectString("127.0.0.1:" + ZookeeperTestServers.closedPort())
                .operationTimeout(Duration.ofMillis(500)).build()) {
            long start = System.nanoTime();
            assertThatThrownBy(backend::ping).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("operationTimeout").hasMessageContaining("zookeeper");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void theOperationTimeoutBoundsASuppliedClientWhateverItsRetryPolicy() throws Exception {
        try (CuratorFramework patient = CuratorFrameworkFactory.newClient("127.0.0.1:" + ZookeeperTestServers.closedPort(),
                60_000, 60_000, new ExponentialBackoffRetry(1000, 29))) {
            patient.start();
            try (ZookeeperLockBackend backend = ZookeeperLockBackend.builder().client(patient)
                    .operationTimeout(Duration.ofMillis(500)).build()) {
                long start = System.nanoTime();
                assertThatThrownBy(() -> backend.tryAcquire(new LockRequest("order:42", "owner", Duration.ofSeconds(5),
                        true))).isInstanceOf(LockBackendException.class).hasMessageContaining("order:42");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void declaresSessionBoundFairPushGuarantees() {
        BackendGuarantees guarantees = ZookeeperLockBackend.GUARANTEES;
        assertThat(guarantees.leaseModel()).isEqualTo(BackendGuarantees.LeaseModel.SESSION_BOUND);
        assertThat(guarantees.fair()).isTrue();
        assertThat(guarantees.wakeup()).isEqualTo(BackendGuarantees.Wakeup.PUSH);
        assertThat(guarantees.fencing()).contains("czxid");
    }
}
