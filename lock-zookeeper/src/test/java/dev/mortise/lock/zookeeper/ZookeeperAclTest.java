package dev.mortise.lock.zookeeper;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.spi.Grant;
import dev.mortise.lock.spi.LockRequest;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Digest authorization and the ACL provider are passed through to the client the backend
 * builds: nodes are created with the provider's ACLs, authorized clients share the locks,
 * and an unauthorized one is refused with a message that says what to configure.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZookeeperAclTest {

    private static final ACLProvider CREATOR_ONLY = new ACLProvider() {
        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }
    };

    @Test
    void authorizedClientsShareLocksAndOthersAreRefused() throws Exception {
        String key = "acl:payroll";
        byte[] credentials = "mortise:s3cret".getBytes(StandardCharsets.UTF_8);
        try (TestingServer server = ZookeeperTestServers.startServer();
             ZookeeperLockBackend first = secured(server, credentials);
             ZookeeperLockBackend second = secured(server, credentials);
             ZookeeperLockBackend stranger = ZookeeperLockBackend.builder().connectString(server.getConnectString())
                     .rootPath("/secured/locks").operationTimeout(Duration.ofSeconds(5)).build()) {
            Grant grant = first.tryAcquire(request(key, "first")).grant().orElseThrow();
            assertThat(second.tryAcquire(request(key, "second")).isGranted()).as("same credentials, lock held").isFalse();

            assertThatThrownBy(() -> stranger.tryAcquire(request(key, "stranger")))
                    .isInstanceOf(LockBackendException.class).hasMessageContaining("NOAUTH")
                    .hasMessageContaining("authorization").hasMessageContaining(key);

            assertThat(first.release(grant)).isTrue();
            Grant next = second.tryAcquire(request(key, "second")).grant().orElseThrow();
            assertThat(next.fencingToken()).isGreaterThan(grant.fencingToken());
            assertThat(second.release(next)).isTrue();
        }
    }

    private static ZookeeperLockBackend secured(TestingServer server, byte[] credentials) {
        return ZookeeperLockBackend.builder().connectString(server.getConnectString()).rootPath("/secured/locks")
                .authorization("digest", credentials).aclProvider(CREATOR_ONLY)
                .operationTimeout(Duration.ofSeconds(5)).build();
    }

    private static LockRequest request(String key, String owner) {
        return new LockRequest(key, owner, Duration.ofSeconds(60), true);
    }
}
