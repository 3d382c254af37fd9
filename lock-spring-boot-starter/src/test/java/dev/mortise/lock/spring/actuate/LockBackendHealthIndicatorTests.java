package dev.mortise.lock.spring.actuate;

import dev.mortise.lock.LockClient;
import dev.mortise.lock.local.LocalLockBackend;
import dev.mortise.lock.local.LocalLockServer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

/** Health of one backend: a ping with its latency. */
class LockBackendHealthIndicatorTests {

    @Test
    void upWithLatencyAndGuarantees() {
        try (LockClient client = LockClient.builder(LocalLockBackend.create()).build()) {
            Health health = new LockBackendHealthIndicator(client).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("backend", "local").containsEntry("held", 0)
                    .containsEntry("leaseModel", "TIME_BOUND").containsKey("latency").containsKey("fencing");
        }
    }

    @Test
    void downWhenTheServerCannotBeReached() {
        LocalLockServer server = new LocalLockServer();
        try (LockClient client = LockClient.builder(new LocalLockBackend(server)).build()) {
            server.stop();
            Health health = new LockBackendHealthIndicator(client).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsEntry("backend", "local");
            assertThat(String.valueOf(health.getDetails().get("error"))).contains("stopped");
        }
    }
}
