package dev.mortise.lock.redis;

import dev.mortise.lock.LockBackendException;
import dev.mortise.lock.LockClient;
import dev.mortise.lock.tck.server.FreePorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Builders reject bad arguments naming the fix; unreachable servers fail clearly within the timeout. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisBuildersTest {

    private static final Duration SLACK = Duration.ofSeconds(5);

    @Test
    void redisBuilderRejectsBadArguments() {
        assertThatThrownBy(() -> RedisLockBackend.builder().address("localhost:6379"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis://host:port");
        assertThatThrownBy(() -> RedisLockBackend.builder().address(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisLockBackend.builder().address("redis://127.0.0.1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis://");
        assertThatThrownBy(() -> RedisLockBackend.builder().clusterNodes()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
        assertThatThrownBy(() -> RedisLockBackend.builder().sentinel("", "redis://127.0.0.1:26379"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sentinel monitor");
        assertThatThrownBy(() -> RedisLockBackend.builder().operationTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> RedisLockBackend.builder().connectTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectTimeout");
        assertThatThrownBy(() -> RedisLockBackend.builder().keyPrefix("app{1}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hash tag");
        assertThatThrownBy(() -> RedisLockBackend.builder().waitForReplicas(-1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicas");
        assertThatThrownBy(() -> RedisLockBackend.builder().waitForReplicas(1, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
        assertThatThrownBy(() -> RedisLockBackend.builder().credentials("user", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("password");
        assertThatThrownBy(() -> RedisLockBackend.builder().client(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisLockBackend.builder().build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exactly one");
        assertThatThrownBy(() -> RedisLockBackend.builder().address("redis://127.0.0.1:1")
                .clusterNodes("redis://127.0.0.1:2").build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("2 were given");
        org.redisson.api.RedissonClient client = org.redisson.Redisson.create(lazyConfig());
        try {
            assertThatThrownBy(() -> RedisLockBackend.builder().client(client).credentials(null, "pw").build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("your RedissonClient");
        } finally {
            client.shutdown();
        }
    }

    private static org.redisson.config.Config lazyConfig() {
        org.redisson.config.Config config = new org.redisson.config.Config();
        config.setLazyInitialization(true);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + FreePorts.next());
        return config;
    }

    @Test
    void redlockBuilderRejectsBadArguments() {
        assertThatThrownBy(() -> RedlockBackend.builder().nodes("redis://127.0.0.1:1", "redis://127.0.0.1:2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 3");
        assertThatThrownBy(() -> RedlockBackend.builder().nodes("redis://127.0.0.1:1", "redis://127.0.0.1:1",
                "redis://127.0.0.1:2")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("distinct");
        assertThatThrownBy(() -> RedlockBackend.builder().clockDrift(1.5, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 1)");
        assertThatThrownBy(() -> RedlockBackend.builder().nodeTimeout(Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nodeTimeout");
        assertThatThrownBy(() -> RedlockBackend.builder().build()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void unreachableServerFailsClearlyWithinTheOperationTimeout() {
        String address = "redis://127.0.0.1:" + FreePorts.next();
        Duration timeout = Duration.ofMillis(800);
        try (LockClient client = LockClient.builder(RedisLockBackend.builder().address(address).operationTimeout(timeout)
                .build()).build()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.tryAcquire("orders:42")).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("orders:42").hasMessageContaining("redis").hasMessageContaining(address)
                    .hasMessageContaining("reachable");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(timeout.plus(SLACK));
            start = System.nanoTime();
            assertThatThrownBy(client::ping).isInstanceOf(LockBackendException.class).hasMessageContaining(address);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(timeout.plus(SLACK));
        }
    }

    @Test
    void unreachableRedlockFailsClearlyWithinItsTimeouts() {
        try (LockClient client = LockClient.builder(RedlockBackend.builder().nodes("redis://127.0.0.1:" + FreePorts.next(),
                "redis://127.0.0.1:" + FreePorts.next(), "redis://127.0.0.1:" + FreePorts.next())
                .nodeTimeout(Duration.ofMillis(300)).build()).build()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.tryAcquire("orders:42")).isInstanceOf(LockBackendException.class)
                    .hasMessageContaining("orders:42").hasMessageContaining("redlock").hasMessageContaining("0 of 3");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SLACK);
        }
    }
}
