package dev.mortise.lock.etcd;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.LockLease;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An operation timeout shorter than jetcd's default retry delay (500 ms) is a valid setting: the
 * backend works with it against a live server and fails with a {@link LockBackendException}, not
 * an error from inside jetcd's retry set-up, when the server is unreachable.
 */
class EtcdShortOperationTimeoutTest extends EtcdServerPerClass {

    private static final Duration SHORT = Duration.ofMillis(300);

    @Test
    void aShortOperationTimeoutWorksAgainstALiveServer() {
        try (LockClient client = LockClient.builder(
                EtcdLockBackend.builder().endpoints(server.endpoint()).operationTimeout(SHORT).build()).build()) {
            Optional<LockLease> lease = client.tryAcquire("short-timeout:live");
            assertThat(lease).isPresent();
            lease.get().close();
        }
    }

    @Test
    void aShortOperationTimeoutAgainstAnUnreachableServerFailsAsABackendError() {
        try (LockClient client = LockClient.builder(EtcdTestSupport.unreachable(SHORT)).build()) {
            assertThatThrownBy(() -> client.tryAcquire("short-timeout:unreachable"))
                    .isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("short-timeout:unreachable");
        }
    }
}
