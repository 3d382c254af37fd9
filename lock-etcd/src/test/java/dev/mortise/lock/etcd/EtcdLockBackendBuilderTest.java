package dev.mortise.lock.etcd;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The builder rejects what cannot work, naming the fix; no server needed. */
class EtcdLockBackendBuilderTest {

    @Test
    void endpointsMustBeUrlsWithHostAndPort() {
        assertThatThrownBy(() -> EtcdLockBackend.builder().endpoints(List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one endpoint");
        assertThatThrownBy(() -> EtcdLockBackend.builder().endpoints("127.0.0.1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http://");
        assertThatThrownBy(() -> EtcdLockBackend.builder().endpoints((String) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
    }

    @Test
    void operationTimeoutMustBePositive() {
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofMillis(9), Duration.ofDays(2))) {
            assertThatThrownBy(() -> EtcdLockBackend.builder().operationTimeout(bad))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
        }
    }

    @Test
    void theRetryBackOffFitsInsideTheOperationTimeout() {
        for (long millis : new long[] {10, 11, 300, 500, 999, 5000, 3_600_000}) {
            Duration timeout = Duration.ofMillis(millis);
            long delay = EtcdLockBackendBuilder.retryDelayMillis(timeout);
            long maxDelay = EtcdLockBackendBuilder.retryMaxDelayMillis(timeout);
            assertThat(delay).as("first retry delay for %s", timeout).isPositive().isLessThan(millis);
            assertThat(maxDelay).as("longest retry delay for %s", timeout).isGreaterThan(delay).isLessThanOrEqualTo(2500);
        }
        assertThat(EtcdLockBackendBuilder.retryDelayMillis(Duration.ofSeconds(5))).isEqualTo(500);
        assertThat(EtcdLockBackendBuilder.retryMaxDelayMillis(Duration.ofSeconds(5))).isEqualTo(2500);
    }

    @Test
    void buildNeedsExactlyOneWayToReachEtcdAndBothCredentials() {
        assertThatThrownBy(() -> EtcdLockBackend.builder().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("endpoints");
        assertThatThrownBy(() -> EtcdLockBackend.builder().endpoints("http://127.0.0.1:2379").user("root").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("user and password");
        try (Client client = Client.builder().endpoints("http://127.0.0.1:2379").build()) {
            assertThatThrownBy(() -> EtcdLockBackend.builder().client(client).endpoints("http://127.0.0.1:2379").build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("not both");
        }
    }

    @Test
    void aSuppliedClientIsUsedAndNeverClosed() {
        try (Client client = Client.builder().endpoints("http://127.0.0.1:2379").build()) {
            EtcdLockBackend backend = EtcdLockBackend.builder().client(client).build();
            assertThat(backend.client()).isSameAs(client);
            assertThat(backend.name()).isEqualTo("etcd");
            backend.close();
            assertThat(client.getKVClient()).isNotNull();
        }
    }
}
